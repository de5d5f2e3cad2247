/* remote_check.c: a C host's remote checks, for bench/helper_cost.py.
 *
 *   remote_check VERSION REPEAT KEY=VALUE...
 *
 * One check with these options, then REPEAT more on the same client, each
 * of which fetches again (cache_ttl_s=0, no stale window: the server
 * answers 304). Prints one JSON object: the first check's milliseconds,
 * the RSS it added (VmRSS after it minus before it, kB), the median of the
 * repeats, and the threads the process has afterwards. */
#define _GNU_SOURCE
#include "versiongate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long status_field(const char *name) {
    FILE *status = fopen("/proc/self/status", "re");
    char line[256];
    long value = -1;
    size_t length = strlen(name);
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, name, length) == 0) value = atol(line + length);
    if (status) fclose(status);
    return value;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double check_once(vg_client *client, const char *version) {
    vg_result *result = NULL;
    double start = now_ms();
    vg_client_check(&result, client, version);
    double elapsed = now_ms() - start;
    vg_result_free(result);
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: remote_check VERSION REPEAT KEY=VALUE...\n");
        return 2;
    }
    int repeat = atoi(argv[2]);
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK) return 2;
    for (int i = 3; i < argc; i++) {
        char *equals = strchr(argv[i], '=');
        if (!equals) return 2;
        *equals = 0;
        if (vg_client_set(client, argv[i], equals + 1) != VG_OK) return 2;
    }
    long rss_before = status_field("VmRSS:");
    double first = check_once(client, argv[1]);
    long rss_after = status_field("VmRSS:");
    double *times = calloc((size_t)(repeat > 0 ? repeat : 1), sizeof *times);
    if (!times) return 2;
    if (repeat > 0) {
        vg_client_set(client, "cache_ttl_s", "0");
        vg_client_set(client, "stale_while_revalidate_s", "0");
    }
    for (int i = 0; i < repeat; i++) times[i] = check_once(client, argv[1]);
    qsort(times, (size_t)repeat, sizeof *times, by_value);
    printf("{\"first_ms\": %.3f, \"rss_added_kb\": %ld, \"repeat_median_ms\": %.3f, \"threads\": %ld}\n", first,
           rss_after - rss_before, repeat > 0 ? times[repeat / 2] : 0.0, status_field("Threads:"));
    free(times);
    vg_client_free(client);
    return 0;
}
