/* N warm checks of one local document, nothing else: run it under
 * `valgrind --tool=callgrind` at two N and divide the difference to get the
 * instructions one check costs, a figure that does not move with machine
 * noise (BENCHMARKS.md). The document must be older than 2 s, or every
 * check re-reads it (the racily-clean rule).
 *   warm_checks DOCUMENT VERSION N */
#include <stdio.h>
#include <stdlib.h>
#include <versiongate.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: warm_checks DOCUMENT VERSION N\n");
        return 2;
    }
    long n = strtol(argv[3], NULL, 10);
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", argv[1]) != VG_OK ||
        vg_client_set(client, "session_scope", "process") != VG_OK) {
        fprintf(stderr, "warm_checks: client setup failed\n");
        return 1;
    }
    for (long i = 0; i < n; i++) {
        vg_result *result = NULL;
        vg_client_check(&result, client, argv[2]);
        vg_result_free(result);
    }
    vg_client_free(client);
    return 0;
}
