/* Times Firebase fetches through vg_client_check, as a launcher makes them:
 * a C host, a client with cache_ttl_s=0 so every check fetches (POST with
 * If-None-Match, answered NO_CHANGE, cache rewritten). The first check,
 * which loads libcurl (and registers the installation if none is saved),
 * is not timed, as curl's time_total does not count its own start-up.
 * Prints one line per timed check: milliseconds.
 * Usage: firebase_fetch ENDPOINT PROJECT API_KEY APP_ID N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "versiongate.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int check_once(vg_client *client)
{
    vg_result *result = NULL;
    int rc = vg_client_check(&result, client, "1.0.0");
    vg_result_free(result);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: firebase_fetch ENDPOINT PROJECT API_KEY APP_ID N\n");
        return 2;
    }
    char source[1024];
    snprintf(source, sizeof source, "firebase://%s?api_key=%s&app_id=%s", argv[2], argv[3], argv[4]);
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK) return 1;
    const char *options[][2] = {
        {"source", source}, {"firebase_endpoint", argv[1]}, {"firebase_installations_endpoint", argv[1]},
        {"cache_ttl_s", "0"}, {"session_scope", "process"},
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (vg_client_set(client, options[i][0], options[i][1]) != VG_OK) {
            fprintf(stderr, "firebase_fetch: %s: %s\n", options[i][0], vg_client_last_error(client));
            return 1;
        }
    }
    int rc = check_once(client);
    for (int i = 0; rc == VG_OK && i < atoi(argv[5]); i++) {
        double start = now_ms();
        rc = check_once(client);
        printf("%.4f\n", now_ms() - start);
    }
    vg_client_free(client);
    if (rc != VG_OK) fprintf(stderr, "firebase_fetch: check failed: %d\n", rc);
    return rc == VG_OK ? 0 : 1;
}
