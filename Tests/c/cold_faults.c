/*
 * cold_faults.c — what a C host pays to load the library and check once.
 *
 *   cold_faults LIBRARY DOCUMENT
 *
 * dlopen(LIBRARY) and one vg_check(DOCUMENT, "1.0.41"), as a launcher's
 * cold start does them, and prints
 *   "cold: F page faults, R kB RSS added by dlopen + first check"
 * from getrusage(RUSAGE_SELF) (ru_minflt + ru_majflt) and /proc/self/status
 * VmRSS read before and after. Tests/c/run.sh holds F to a bound: every
 * page the loader relocates, every code page the first check runs and
 * every zero page it writes is a fault, so a layout regression (code not
 * ordered, relocated data spread out, a runtime piece linked back in)
 * shows as a count, whatever the machine's speed. scripts/cold_order runs
 * it under valgrind to list what the check touches. Exit status 0 when
 * the check answered, 1 otherwise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "vmrss.h"

/* Minor and major: a page the kernel has to read from disk (evicted from
 * the page cache) is a major fault, and is still a page touched. */
static long faults(void)
{
    struct rusage usage;
    return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_minflt + usage.ru_majflt : -1;
}


typedef int (*check_fn)(void **, const char *, const char *);
typedef void (*free_fn)(void *);

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: cold_faults LIBRARY DOCUMENT\n"); return 2; }
    long rss_before = rss_kib();          /* its own faults come before */
    long before = faults();
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    check_fn check = (check_fn)dlsym(library, "vg_check");
    free_fn result_free = (free_fn)dlsym(library, "vg_result_free");
    if (!check || !result_free) { fprintf(stderr, "vg_check not found\n"); return 1; }
    void *result = NULL;
    int rc = check(&result, argv[2], "1.0.41");
    result_free(result);
    long after = faults();
    printf("cold: %ld page faults, %ld kB RSS added by dlopen + first check\n",
           after - before, rss_kib() - rss_before);
    return rc == 0 ? 0 : 1;
}
