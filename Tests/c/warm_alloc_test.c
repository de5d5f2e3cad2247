/* Allocations of a warm check (docs/design.md, "Sources and the cache"),
 * counted by the LD_PRELOAD shim alloc_count.c: a check of a cached local
 * document that is up to date allocates only its result, and a prompting
 * one (MANDATORY and OPTIONAL in turn, German texts, store URL) little
 * more. A regression on the hot path fails here, not in a benchmark.
 *   warm_alloc_test DOCUMENT STATE_DIRECTORY   (run under LD_PRELOAD) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <versiongate.h>
#include "check.h"

/* What each check may allocate: the result handle; an OPTIONAL one also
 * its session key (source, platform, current and latest version). */
#define MAX_UP_TO_DATE 1
#define MAX_MANDATORY 1
#define MAX_OPTIONAL 2
#define CHECKS 200

static unsigned long (*count)(void);

/* Allocations per check over CHECKS checks of `versions` in turn. */
static double per_check(vg_client *client, const char *const *versions, int n)
{
    unsigned long before = count();
    for (int i = 0; i < CHECKS; i++) {
        vg_result *result = NULL;
        vg_client_check(&result, client, versions[i % n]);
        vg_result_free(result);
    }
    return (double)(count() - before) / CHECKS;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: warm_alloc_test DOCUMENT STATE_DIRECTORY\n");
        return 2;
    }
    count = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "alloc_count");
    CHECK(count != NULL);
    if (!count) {
        printf("allocations: %d passed, %d failed\n", passed, failed);
        return 1;
    }
    /* The racily-clean rule re-reads a document changed in the last 2 s. */
    struct stat s;
    CHECK(stat(argv[1], &s) == 0);
    while (time(NULL) - s.st_ctime < 3 || time(NULL) - s.st_mtime < 3) sleep(1);
    setenv("XDG_STATE_HOME", argv[2], 1);
    setenv("LANG", "de_DE.UTF-8", 1);
    unsetenv("LANGUAGE");
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");

    vg_client *client = NULL;
    CHECK(vg_client_new(&client) == VG_OK);
    CHECK(vg_client_set(client, "source", argv[1]) == VG_OK);
    CHECK(vg_client_set(client, "session_scope", "process") == VG_OK);

    /* Warm: the snapshot, the memos and the runtime's first-use caches. */
    const char *const all[] = {"1.0.41", "1.0.38", "1.0.40", "1.0.20", "0.9", "1.0.0"};
    per_check(client, all, 6);

    const char *const up_to_date[] = {"1.0.41"}, *const mandatory[] = {"1.0.38"}, *const optional[] = {"1.0.40"};
    const char *const prompting[] = {"1.0.38", "1.0.40"};
    /* A host showing several apps checks several blocked versions in turn. */
    const char *const blocked[] = {"1.0.38", "1.0.20", "0.9", "1.0.0"};
    double a = per_check(client, up_to_date, 1), m = per_check(client, mandatory, 1);
    double o = per_check(client, optional, 1), p = per_check(client, prompting, 2);
    double b = per_check(client, blocked, 4);
    printf("note allocations per check: up to date %.2f, MANDATORY %.2f, OPTIONAL %.2f, both in turn %.2f, "
           "4 MANDATORY in turn %.2f\n", a, m, o, p, b);
    CHECK(a <= MAX_UP_TO_DATE);
    CHECK(m <= MAX_MANDATORY);
    CHECK(b <= MAX_MANDATORY);
    CHECK(o <= MAX_OPTIONAL);

    /* Still right after all that: the texts are the German catalog's. */
    vg_result *result = NULL;
    vg_client_check(&result, client, "1.0.38");
    CHECK(vg_result_status(result) == VG_STATUS_MANDATORY);
    CHECK(vg_result_title(result) != NULL && vg_result_store_url(result) != NULL);
    vg_result_free(result);

    vg_client_free(client);
    printf("allocations: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
