/* refresh: the library's vg_client_refresh, run as the background
 * refresher a check starts (docs/design.md, "The background refresh").
 * With --detach it forks and the first process exits at once, so whoever
 * started it waits for nothing and no zombie is left to it; the refresher
 * lowers its own priority and is killed by an alarm if its deadline (the
 * library's) somehow did not stop it. */
#define _GNU_SOURCE
#include "cli.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Longer than the library's own refresh deadline (30 s). */
enum { HARD_LIMIT_S = 45 };

static void on_dev_null(void) {
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    for (int target = 0; target <= 2; target++) dup2(fd, target);
    if (fd > 2) close(fd);
}

int vgcli_refresh(const vgcli_args *args) {
    if (args->detach) {
        pid_t child = fork();
        if (child < 0) return 1;
        if (child > 0) _exit(0);
        setsid();
        on_dev_null();
    }
    /* Low priority: a launch's refresh must not compete with the app. */
    if (setpriority(PRIO_PROCESS, 0, 19) != 0) { /* best effort */ }
    struct sched_param idle = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &idle) != 0) { /* best effort */ }
    alarm(HARD_LIMIT_S);

    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("refresh", error);
    int code = vg_client_refresh(client);
    if (code != VG_OK) vgcli_warn("refresh: %s; the cache stays as it was", vg_strerror(code));
    vg_client_free(client);
    return code == VG_OK ? VGCLI_EXIT_OK : VGCLI_EXIT_INVALID;
}
