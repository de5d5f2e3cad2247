/* watch: the library's vg_client_watch, printed (docs/design.md, "Watching
 * a source"): the decision now, then one more each time it changes, until
 * SIGTERM or SIGINT, or stdin closes; exit 0, the watch ended (its helper
 * with it). What changed is the library's to say: a decision is printed
 * again when any field it reports differs. */
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;

static void on_stop(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

/* The decision's line (JSON with --json), malloc'd; NULL when out of memory. */
static char *decision(vg_client *client, const vgcli_args *args) {
    vg_result *result = NULL;
    vg_client_check(&result, client, args->version);
    vgcli_warn_result(result);
    char *line = NULL;
    if (args->json) {
        const char *json = vg_result_json(result);
        line = strdup(json ? json : "{}");
    } else {
        const char *message = vg_result_message(result);
        const char *url = vg_result_store_url(result);
        size_t size = 64 + strlen(message ? message : "") + strlen(url ? url : "")
            + strlen(vg_result_get(result, "status")) + strlen(vg_result_get(result, "rule"))
            + strlen(vg_result_get(result, "latest"));
        line = malloc(size);
        if (line) {
            snprintf(line, size, "%s (%s) latest %s%s%s%s%s", vg_result_get(result, "status"),
                     vg_result_get(result, "rule"), vg_result_get(result, "latest"),
                     message ? ": " : "", message ? message : "", url ? " " : "", url ? url : "");
        }
    }
    vg_result_free(result);
    return line;
}

/* Reads what is waiting on the nonblocking descriptor; 0 when its writer is gone. */
static int drain(int fd) {
    char buffer[512];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) continue;
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

int vgcli_watch(const vgcli_args *args) {
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("watch", error);
    struct sigaction stop = {0};
    stop.sa_handler = on_stop;   /* no SA_RESTART: poll returns EINTR */
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGINT, &stop, NULL);
    /* The decision first (it fills the cache the watch starts from), then the watch:
     * its helper tells a change in between once. */
    char *last = decision(client, args);
    if (last) {
        printf("%s\n", last);
        fflush(stdout);
    }
    int fd = -1;
    int code = vg_client_watch(client, &fd);
    int status = VGCLI_EXIT_OK;
    if (code != VG_OK) {
        vgcli_warn("watch: %s: %s", vg_strerror(code), vg_client_last_error(client));
        status = VGCLI_EXIT_INVALID;
    }
    while (code == VG_OK && !stopping) {
        struct pollfd ready[2] = {{.fd = fd, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
        if (poll(ready, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (ready[1].revents) {
            char ignored[256];
            ssize_t n = read(0, ignored, sizeof ignored);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;   /* stdin closed */
        }
        if (!ready[0].revents) continue;
        if (!drain(fd)) {
            vgcli_warn("watch: the library's watch ended; the decision above stands");
            status = VGCLI_EXIT_INVALID;
            break;
        }
        char *now = decision(client, args);
        if (now && (!last || strcmp(now, last) != 0)) {
            printf("%s\n", now);
            fflush(stdout);
            free(last);
            last = now;
        } else {
            free(now);
        }
    }
    free(last);
    vg_client_unwatch(client);
    vg_client_free(client);
    return status;
}
