/* One cold check as a launcher does it: dlopen the library, check a local
 * gate document, exit. scripts/bench times many runs of it, with and
 * without libcurl preloaded, to show what a check answered locally would
 * pay if the library linked libcurl instead of loading it on first use.
 * With --rss N it makes N checks instead of one and prints the RSS they and
 * the dlopen added to the process.
 *   cold_check LIBRARY DOCUMENT [--rss N] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../Tests/c/vmrss.h"


typedef int (*check_fn)(void **, const char *, const char *);
typedef void (*free_fn)(void *);

int main(int argc, char **argv)
{
    int rss = argc == 5 && strcmp(argv[3], "--rss") == 0;
    if (argc != 3 && !rss) { fprintf(stderr, "usage: cold_check LIBRARY DOCUMENT [--rss N]\n"); return 2; }
    long checks = rss ? strtol(argv[4], NULL, 10) : 1;
    long before = rss ? rss_kib() : 0;  /* only then: reading it costs time */
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    check_fn check = (check_fn)dlsym(library, "vg_check");
    free_fn result_free = (free_fn)dlsym(library, "vg_result_free");
    if (!check || !result_free) return 1;
    int rc = 0;
    for (long i = 0; i < checks && rc == 0; i++) {
        void *result = NULL;
        rc = check(&result, argv[2], "1.0.41");
        result_free(result);
    }
    if (rss)
        printf("%.1f MiB\n", (rss_kib() - before) / 1024.0);
    return rc == 0 ? 0 : 1;
}
