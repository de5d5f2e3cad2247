/* The warm check's cost (docs/design.md, "The decision"):
 * one client, session_scope=process, a local document older than 2 s; KIND
 * names the versions checked, one repeated or several in turn, each kind
 * warmed first (every version checked twice). Between two markers
 * (access(2) of "vg-cost-begin" and "vg-cost-end", which strace shows) it
 * runs N checks. Tests/c/warm_cost.py counts the system calls between the
 * markers under strace and the instructions of two run lengths under
 * callgrind, and holds both to bounds (Tests/c/warm_cost.bounds).
 *   warm_cost DOCUMENT KIND N */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <versiongate.h>

/* For examples/gate.json: minimum 1.0.39, latest 1.0.41. */
static const struct {
    const char *kind;
    vg_status status;
    const char *versions[4];
    const char *program; /* option program, or NULL */
} kinds[] = {
    {"up-to-date-one", VG_STATUS_UP_TO_DATE, {"1.0.41"}, NULL},
    {"up-to-date-several", VG_STATUS_UP_TO_DATE, {"1.0.41", "1.0.42", "1.1.0", "2.0.0"}, NULL},
    {"optional-one", VG_STATUS_OPTIONAL, {"1.0.40"}, NULL},
    {"optional-several", VG_STATUS_OPTIONAL, {"1.0.40", "1.0.39", "1.0.40.1", "1.0.41-rc.1"}, NULL},
    {"mandatory-one", VG_STATUS_MANDATORY, {"1.0.38"}, NULL},
    {"mandatory-several", VG_STATUS_MANDATORY, {"1.0.38", "1.0.20", "0.9", "1.0.0"}, NULL},
    /* A launcher that names its program: a block asks who owns it (dpkg-query), once. */
    {"mandatory-program", VG_STATUS_MANDATORY, {"1.0.38", "1.0.20"}, "/usr/bin/true"},
};

/* Checks versions[i % count] for i in [0, n); 0 when each had `status`. */
static int checks(vg_client *client, const char *const *versions, int count, vg_status status, long n)
{
    int wrong = 0;
    for (long i = 0; i < n; i++) {
        vg_result *result = NULL;
        vg_client_check(&result, client, versions[i % count]);
        wrong |= vg_result_status(result) != status;
        vg_result_free(result);
    }
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: warm_cost DOCUMENT KIND N\n");
        return 2;
    }
    long n = strtol(argv[3], NULL, 10);
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].kind, argv[2]) != 0) k++;
    if (k == sizeof kinds / sizeof kinds[0] || n < 0) {
        fprintf(stderr, "warm_cost: unknown kind '%s' or bad N\n", argv[2]);
        return 2;
    }
    int count = 0;
    while (count < 4 && kinds[k].versions[count]) count++;

    /* The racily-clean rule re-reads a document changed in the last 2 s. */
    struct stat s;
    if (stat(argv[1], &s) != 0) {
        perror("warm_cost: the document");
        return 1;
    }
    while (time(NULL) - s.st_ctime < 3 || time(NULL) - s.st_mtime < 3) sleep(1);

    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", argv[1]) != VG_OK ||
        vg_client_set(client, "session_scope", "process") != VG_OK ||
        (kinds[k].program && vg_client_set(client, "program", kinds[k].program) != VG_OK)) {
        fprintf(stderr, "warm_cost: client setup failed\n");
        return 1;
    }
    int wrong = checks(client, kinds[k].versions, count, kinds[k].status, 2 * count);
    (void)access("vg-cost-begin", F_OK);
    wrong |= checks(client, kinds[k].versions, count, kinds[k].status, n);
    (void)access("vg-cost-end", F_OK);
    vg_client_free(client);
    if (wrong) fprintf(stderr, "warm_cost: a %s check answered another status\n", argv[2]);
    return wrong;
}
