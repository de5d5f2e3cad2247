/*
 * canary.c — planted bugs that the sanitizer runs of scripts/proof must
 * catch, so a harness that silently stopped reporting (runtime not loaded,
 * options not passed, exit status lost) fails the proof instead of passing.
 *
 *   canary use-after-free   reads a vg_result_json string after
 *                           vg_result_free: the library's heap as seen by
 *                           AddressSanitizer (expected: a report, exit != 0)
 *   canary race             two threads write one int without a lock:
 *                           ThreadSanitizer (expected: a report, exit 66)
 */
#include "versiongate.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int shared_counter;

static void *bump(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) shared_counter++; /* the planted race */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "use-after-free") == 0) {
        vg_result *r = NULL;
        vg_check(&r, "/nonexistent/vg-canary/gate.json", "1.0.0");
        const char *json = vg_result_json(r);
        vg_result_free(r);
        return json[0] == '{' ? 0 : 3; /* the planted use after free */
    }
    if (argc == 2 && strcmp(argv[1], "race") == 0) {
        pthread_t a, b;
        pthread_create(&a, NULL, bump, NULL);
        pthread_create(&b, NULL, bump, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        printf("%d\n", shared_counter);
        return 0;
    }
    fprintf(stderr, "usage: %s use-after-free|race\n", argv[0]);
    return 2;
}
