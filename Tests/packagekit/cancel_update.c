/* The PackageKit world's cancel (Tests/python/test_packagekit_update.py):
 * vg_client_update for distro_package vgdemo, its progress callback
 * cancelling at the first step. Prints the outcome, then waits so the
 * helper, left to see its transaction through, can send Cancel before the
 * world ends.   cancel_update GATE */
#include <stdio.h>
#include <unistd.h>

#include "versiongate.h"

static int steps;

static int cancel_at_once(int op, int n_ops, int percent, void *userdata) {
    (void)op, (void)n_ops, (void)percent, (void)userdata;
    steps++;
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    vg_client *client = NULL;
    vg_result *result = NULL;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", argv[1]) != VG_OK ||
        vg_client_set(client, "distro_package", "vgdemo") != VG_OK || vg_client_check(&result, client, "1.0") != VG_OK)
        return 3;
    vg_update_outcome outcome;
    int code = vg_client_update(&outcome, client, result, cancel_at_once, NULL);
    const char *why = vg_client_last_error(client);
    printf("code=%d outcome=%d steps=%d why=%s\n", code, (int)outcome, steps, why ? why : "");
    fflush(stdout);
    sleep(3);
    vg_result_free(result);
    vg_client_free(client);
    return 0;
}
