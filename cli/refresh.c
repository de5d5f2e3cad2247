/* refresh: the library's vg_client_refresh, run as the background
 * refresher a check starts (docs/design.md, "The background refresh").
 * With --detach it starts itself again without --detach (posix_spawn of
 * /proc/self/exe: a fork() child could not use the library, which refuses
 * fork children) in a session of its own, stdio on /dev/null, and exits at
 * once, so whoever started it waits for nothing and no zombie is left to
 * it. The refresher lowers its own priority and is killed by an alarm if
 * its deadline (the library's) somehow did not stop it. */
#define _GNU_SOURCE
#include "cli.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

extern char **environ;

/* Longer than the library's own refresh deadline (30 s). */
enum { HARD_LIMIT_S = 45 };

/* "versiongate refresh --set K=V ... [-v]" from the parsed settings. */
static char **refresher_argv(const vgcli_args *args) {
    size_t count = 2 + 2 * args->setting_count + 2 + (size_t)(args->verbose > 0 ? args->verbose : 0) + 1;
    char **argv = calloc(count, sizeof *argv);
    if (!argv) return NULL;
    size_t n = 0;
    argv[n++] = strdup("versiongate");
    argv[n++] = strdup("refresh");
    for (size_t i = 0; i < args->setting_count; i++) {
        size_t length = strlen(args->settings[i].key) + strlen(args->settings[i].value) + 2;
        char *pair = malloc(length);
        if (pair) snprintf(pair, length, "%s=%s", args->settings[i].key, args->settings[i].value);
        argv[n++] = strdup("--set");
        argv[n++] = pair;
    }
    if (args->version) {
        argv[n++] = strdup("--version");
        argv[n++] = strdup(args->version);
    }
    for (int v = 0; v < args->verbose; v++) argv[n++] = strdup("-v");
    for (size_t i = 0; i < n; i++)
        if (!argv[i]) {
            for (size_t j = 0; j < n; j++) free(argv[j]);
            free(argv);
            return NULL;
        }
    return argv;
}

/* The refresher, detached; 0 when it started. */
static int start_detached(const vgcli_args *args) {
    char **argv = refresher_argv(args);
    if (!argv) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = -1;
    if (posix_spawn_file_actions_init(&actions) != 0) goto out;
    if (posix_spawnattr_init(&attributes) != 0) goto out_actions;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    pid_t pid;
    if (posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0
        && posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) == 0
        && posix_spawn_file_actions_adddup2(&actions, 1, 2) == 0
        && posix_spawnattr_setsigmask(&attributes, &none) == 0
        && posix_spawnattr_setsigdefault(&attributes, &all) == 0
        && posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK
                                                     | POSIX_SPAWN_SETSIGDEF) == 0)
        status = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, environ) == 0 ? 0 : -1;
    posix_spawnattr_destroy(&attributes);
out_actions:
    posix_spawn_file_actions_destroy(&actions);
out:
    for (char **a = argv; *a; a++) free(*a);
    free(argv);
    return status;
}

int vgcli_refresh(const vgcli_args *args) {
    /* Its child is left to init: this process exits now, unwaited for it. */
    if (args->detach) return start_detached(args) == 0 ? VGCLI_EXIT_OK : VGCLI_EXIT_INVALID;
    /* Low priority: a launch's refresh must not compete with the app. */
    if (setpriority(PRIO_PROCESS, 0, 19) != 0) { /* best effort */ }
    struct sched_param idle = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &idle) != 0) { /* best effort */ }
    alarm(HARD_LIMIT_S);

    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("refresh", error);
    int code = vg_client_refresh(client, args->version);
    if (code != VG_OK) vgcli_warn("refresh: %s; the cache stays as it was", vg_strerror(code));
    vg_client_free(client);
    return code == VG_OK ? VGCLI_EXIT_OK : VGCLI_EXIT_INVALID;
}
