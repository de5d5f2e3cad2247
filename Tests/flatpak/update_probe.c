/* The library's update in place from C, run inside the test app
 * (Tests/python/test_update_in_place.py): update_probe SOURCE VERSION
 * [cancel] checks VERSION against SOURCE, then calls vg_client_update with
 * a progress callback (which cancels at its first call with "cancel"), and
 * prints each step, each event, the outcome and the reason; update_probe
 * restart COMMAND... restarts into the newest version and waits. With
 * PROBE_IGNORE_SIGCHLD set, either runs with SIGCHLD ignored, as some
 * hosts do (then no child can be waited for). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <versiongate.h>

static int cancel;

static int on_progress(int op, int n_ops, int percent, void *userdata) {
    (void)userdata;
    printf("PROGRESS %d %d %d\n", op, n_ops, percent);
    fflush(stdout);
    return cancel;
}

static void on_event(const char *json, void *userdata) {
    (void)userdata;
    printf("EVENT %s\n", json);
}

/* update_probe restart COMMAND...: vg_client_restart, waiting. */
static int restart(char **command) {
    vg_client *client;
    if (vg_client_new(&client) != VG_OK) return 2;
    int status = -1;
    int code = vg_client_restart(client, (const char *const *)command, NULL, &status);
    const char *why = vg_client_last_error(client);
    printf("RESTART CODE %d STATUS %d REASON %s\n", code, status, why ? why : "");
    vg_client_free(client);
    return 0;
}

int main(int argc, char **argv) {
    if (getenv("PROBE_IGNORE_SIGCHLD")) signal(SIGCHLD, SIG_IGN);
    if (argc > 2 && strcmp(argv[1], "restart") == 0) return restart(argv + 2);
    if (argc < 3) {
        fprintf(stderr, "usage: update_probe SOURCE VERSION [cancel] | update_probe restart COMMAND...\n");
        return 2;
    }
    cancel = argc > 3 && strcmp(argv[3], "cancel") == 0;
    vg_client *client;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", argv[1]) != VG_OK) return 2;
    vg_client_set_event_callback(client, on_event, NULL);
    vg_result *result;
    vg_client_check(&result, client, argv[2]);
    printf("STATUS %d\n", (int)vg_result_status(result));
    vg_update_outcome outcome;
    int code = vg_client_update(&outcome, client, result, on_progress, NULL);
    const char *why = vg_client_last_error(client);
    printf("OUTCOME %d CODE %d REASON %s\n", (int)outcome, code, why ? why : "");
    vg_result_free(result);
    vg_client_free(client);
    return 0;
}
