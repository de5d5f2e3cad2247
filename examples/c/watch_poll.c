/*
 * watch_poll.c — an app that stays open, told when its decision changes.
 *
 *   watch_poll --source SOURCE --version V [--seconds N]
 *
 * Prints the decision, then watches the source (vg_client_watch) with
 * poll(2) beside the app's own descriptors (here: none but the watch). Each
 * time the watch's descriptor is readable it drains it and checks again (a
 * warm check) and prints the decision when its status changed. A MANDATORY
 * published while it runs is the app's to handle: this one says so and
 * exits with status 3 (a real app would save its work and ask the user to
 * update); the library never stops a running app. After N seconds
 * (default 60) it exits 0.
 *
 * Build:
 *   cc -std=c99 -Iinclude examples/c/watch_poll.c -o watch_poll -Lbuild/lib -lversiongate
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "versiongate.h"

static vg_status check(vg_client *client, const char *version) {
    vg_result *result = NULL;
    vg_client_check(&result, client, version);
    vg_status status = vg_result_status(result);
    const char *message = vg_result_message(result);
    printf("%s%s%s\n", vg_result_get(result, "status"), message ? ": " : "", message ? message : "");
    fflush(stdout);
    vg_result_free(result);
    return status;
}

int main(int argc, char **argv) {
    const char *source = NULL, *version = NULL;
    int seconds = 60;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--source") == 0) source = argv[i + 1];
        else if (strcmp(argv[i], "--version") == 0) version = argv[i + 1];
        else if (strcmp(argv[i], "--seconds") == 0) seconds = atoi(argv[i + 1]);
    }
    if (!source || !version) {
        fprintf(stderr, "usage: watch_poll --source SOURCE --version V [--seconds N]\n");
        return 2;
    }
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", source) != VG_OK) {
        fprintf(stderr, "watch_poll: %s\n", client ? vg_client_last_error(client) : "no client");
        vg_client_free(client);
        return 2;
    }
    vg_status last = check(client, version);
    int fd = -1;
    if (vg_client_watch(client, &fd) != VG_OK) {
        /* Fail open: the app runs on with the decision it has. */
        fprintf(stderr, "watch_poll: not watching: %s\n", vg_client_last_error(client));
    }
    time_t end = time(NULL) + seconds;
    int exit_status = 0;
    while (fd >= 0 && time(NULL) < end && last != VG_STATUS_MANDATORY) {
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        int n = poll(&ready, 1, (int)(end - time(NULL)) * 1000);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        char buffer[256];
        while (read(fd, buffer, sizeof buffer) > 0) {}   /* drain: nonblocking */
        vg_status now = check(client, version);
        if (now == VG_STATUS_MANDATORY) {
            printf("a newer version is required: save your work and update\n");
            exit_status = 3;
        }
        last = now;
    }
    vg_client_free(client);   /* ends the watch and its helper */
    return exit_status;
}
