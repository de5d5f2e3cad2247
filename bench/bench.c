/*
 * bench.c — how much does asking VersionGate cost, next to plain C?
 *
 * For vg_version_compare, vg_decide (four rotating triples, and the three
 * outcomes MANDATORY / OPTIONAL / UP_TO_DATE in turn) and vg_client_check
 * (a warm local gate document, session_scope=process, the result freed
 * every call: a version that is UP_TO_DATE, a prompting one, MANDATORY
 * and OPTIONAL in turn, and four MANDATORY versions in turn, as a host
 * showing several apps checks them, each with its title, message, labels
 * and store URL read) it prints the median ns per call over ROUNDS rounds of N calls, N
 * chosen so a round takes about 20-50 ms, next to a plain-C baseline timed
 * in the same run, and the ratio library/baseline.
 *
 * The baselines are the least a C launcher could write by hand: a
 * comparator of dotted numeric versions (a digit loop, no allocation, no
 * validation), a decide made of two such comparisons, and for a check the
 * one stat(2) of the document a warm check must make (has it changed?)
 * plus that decide. They are the cost of the answer with none of the
 * version validation (docs/design.md, "Versions"), pre-release ordering,
 * fail-safe, texts or result.
 *
 * With VG_BENCH_FIGURES=FILE it also appends its ratios to FILE, one
 * "name value" line each, for scripts/bench's summary table.
 *
 * A benchmark, not a test: it exits non-zero only if the library's answers
 * are wrong, which would make the timings meaningless.
 *
 * Build and run: scripts/bench.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, mkstemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "versiongate.h"

#define ROUNDS 21
#define ROUND_MIN_NS 20000000.0 /* 20 ms: the calibration target */

static volatile int sink; /* every answer lands here, so no call is optimized away */

/* ---- the plain-C baseline ----------------------------------------- */

/* -1, 0, 1 for dotted numeric versions ("1.0.39" vs "1.0.41"); missing
 * components are 0. No validation: anything else stops the comparison. */
static int plain_compare(const char *a, const char *b) {
    for (;;) {
        unsigned long long x = 0, y = 0;
        while (*a >= '0' && *a <= '9') x = x * 10 + (unsigned)(*a++ - '0');
        while (*b >= '0' && *b <= '9') y = y * 10 + (unsigned)(*b++ - '0');
        if (x != y) return x < y ? -1 : 1;
        if (*a != '.' && *b != '.') return 0;
        if (*a == '.') a++;
        if (*b == '.') b++;
    }
}

static vg_status plain_decide(const char *cur, const char *min, const char *latest) {
    if (plain_compare(cur, min) < 0) return VG_STATUS_MANDATORY;
    if (plain_compare(cur, latest) < 0) return VG_STATUS_OPTIONAL;
    return VG_STATUS_UP_TO_DATE;
}

/* ---- inputs, rotated ---------------------------------------------- */

#define NPAIRS 4 /* a power of two: i & (NPAIRS - 1) rotates */

static const char *const pairs[NPAIRS][2] = {
    {"1.0.39", "1.0.41"}, {"2.10.0", "2.9.3"}, {"1.0.41", "1.0.41"}, {"10.4.1", "10.4.12"},
};
static const char *const triples[NPAIRS][3] = { /* current, min, latest */
    {"1.0.38", "1.0.39", "1.0.41"}, {"1.0.40", "1.0.39", "1.0.41"},
    {"1.0.41", "1.0.39", "1.0.41"}, {"2.3.0", "2.1.0", "2.3.0"},
};
static const char *const current[NPAIRS] = { /* all UP_TO_DATE for the document */
    "1.0.41", "1.0.42", "1.1.0", "2.0.0",
};
/* The three outcomes in turn: MANDATORY, OPTIONAL, UP_TO_DATE. */
static const char *const outcomes[3][3] = {
    {"1.0.38", "1.0.39", "1.0.41"}, {"1.0.40", "1.0.39", "1.0.41"}, {"1.0.41", "1.0.39", "1.0.41"},
};
/* Prompting versions for the document: MANDATORY, OPTIONAL. */
static const char *const prompting[2] = {"1.0.38", "1.0.40"};
/* Blocked versions, checked in turn: a host showing several apps (docs/design.md, "The decision"). */
static const char *const blocked[NPAIRS] = {"1.0.38", "1.0.20", "0.9", "1.0.0"};
static const char document[] =
    "{\"min_required_version_linux\": \"1.0.39\",\n"
    " \"latest_version_linux\": \"1.0.41\",\n"
    " \"update_url_linux\": \"https://flathub.org/apps/com.example.Launcher\"}\n";

static vg_client *client; /* for check_library */
static char path[] = "/tmp/versiongate-bench-XXXXXX"; /* the document */

/* ---- what is timed: n calls, inputs rotated ------------------------ */

typedef void (*loop_fn)(long n);

static void compare_library(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *p = pairs[i & (NPAIRS - 1)];
        int r = 0;
        vg_version_compare(&r, p[0], p[1]);
        sink = r;
    }
}
static void compare_plain(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *p = pairs[i & (NPAIRS - 1)];
        sink = plain_compare(p[0], p[1]);
    }
}
static void decide_library(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *t = triples[i & (NPAIRS - 1)];
        sink = (int)vg_decide(t[0], t[1], t[2]);
    }
}
static void decide_plain(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *t = triples[i & (NPAIRS - 1)];
        sink = (int)plain_decide(t[0], t[1], t[2]);
    }
}
static void decide3_library(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *t = outcomes[i % 3];
        sink = (int)vg_decide(t[0], t[1], t[2]);
    }
}
static void decide3_plain(long n) {
    for (long i = 0; i < n; i++) {
        const char *const *t = outcomes[i % 3];
        sink = (int)plain_decide(t[0], t[1], t[2]);
    }
}
/* What a warm check must do at least: see whether the document changed. */
static void stat_decide_plain(long n) {
    for (long i = 0; i < n; i++) {
        struct stat st;
        const char *const *t = triples[i & (NPAIRS - 1)];
        sink = stat(path, &st) + (int)plain_decide(t[0], t[1], t[2]);
    }
}
/* Everything a launcher shows: title, message, the labels, the store URL. */
static int prompt_texts(const vg_result *r) {
    return (vg_result_title(r) != NULL) + (vg_result_message(r) != NULL) +
           (vg_result_action_label(r) != NULL) + (vg_result_dismiss_label(r) != NULL) +
           (vg_result_store_url(r) != NULL);
}
static void prompting_library(long n) {
    for (long i = 0; i < n; i++) {
        vg_result *r = NULL;
        vg_client_check(&r, client, prompting[i & 1]);
        sink = (int)vg_result_status(r) + prompt_texts(r);
        vg_result_free(r);
    }
}
static void blocked_library(long n) {
    for (long i = 0; i < n; i++) {
        vg_result *r = NULL;
        vg_client_check(&r, client, blocked[i & (NPAIRS - 1)]);
        sink = (int)vg_result_status(r) + prompt_texts(r);
        vg_result_free(r);
    }
}
static void check_library(long n) {
    for (long i = 0; i < n; i++) {
        vg_result *r = NULL;
        vg_client_check(&r, client, current[i & (NPAIRS - 1)]);
        sink = (int)vg_result_status(r);
        vg_result_free(r);
    }
}

/* ---- timing -------------------------------------------------------- */

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double time_round(loop_fn f, long n) {
    double t0 = now_ns();
    f(n);
    return now_ns() - t0;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* N calls of f take about ROUND_MIN_NS (this also warms f up). */
static long calibrate(loop_fn f) {
    long n = 1;
    while (time_round(f, n) < ROUND_MIN_NS && n < (1L << 40)) n *= 2;
    return n;
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof values[0], by_value);
    return values[count / 2];
}

/* ROUNDS rounds of the library and its baseline in turn, so a change in
 * the machine's load falls on both: the median ns per call of each, and
 * the median of the rounds' ratios (the figure reported). */
typedef struct {
    long n_lib, n_base;
    double lib_ns, base_ns, ratio;
} pair_timing;

static pair_timing time_pair(loop_fn library, loop_fn baseline) {
    pair_timing t = {calibrate(library), calibrate(baseline), 0, 0, 0};
    double lib[ROUNDS], base[ROUNDS], ratio[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        lib[r] = time_round(library, t.n_lib) / (double)t.n_lib;
        base[r] = time_round(baseline, t.n_base) / (double)t.n_base;
        ratio[r] = lib[r] / base[r];
    }
    t.lib_ns = median(lib, ROUNDS);
    t.base_ns = median(base, ROUNDS);
    t.ratio = median(ratio, ROUNDS);
    return t;
}

/* ---- the library must give the right answers before it is timed ---- */

static int sane(void) {
    static const int want_compare[NPAIRS] = {-1, 1, 0, -1};
    static const vg_status want_decide[NPAIRS] = {
        VG_STATUS_MANDATORY, VG_STATUS_OPTIONAL, VG_STATUS_UP_TO_DATE, VG_STATUS_UP_TO_DATE};
    int ok = 1;
    for (int i = 0; i < NPAIRS; i++) {
        int c = 99, err = vg_version_compare(&c, pairs[i][0], pairs[i][1]);
        if (err != VG_OK || c != want_compare[i] || plain_compare(pairs[i][0], pairs[i][1]) != c) {
            fprintf(stderr, "bench: compare(%s, %s) = %d (%s), want %d\n",
                    pairs[i][0], pairs[i][1], c, vg_strerror(err), want_compare[i]);
            ok = 0;
        }
        const char *const *t = triples[i];
        if (vg_decide(t[0], t[1], t[2]) != want_decide[i] || plain_decide(t[0], t[1], t[2]) != want_decide[i]) {
            fprintf(stderr, "bench: decide(%s, %s, %s) is wrong\n", t[0], t[1], t[2]);
            ok = 0;
        }
        vg_result *r = NULL;
        int e = vg_client_check(&r, client, current[i]);
        if (e != VG_OK || vg_result_status(r) != VG_STATUS_UP_TO_DATE) {
            const char *why = vg_result_error_message(r);
            fprintf(stderr, "bench: check(%s) = status %d, %s%s%s\n", current[i],
                    (int)vg_result_status(r), vg_strerror(e), why ? ": " : "", why ? why : "");
            ok = 0;
        }
        vg_result_free(r);
    }
    for (int i = 0; i < NPAIRS; i++) {
        vg_result *r = NULL;
        vg_client_check(&r, client, blocked[i]);
        if (vg_result_status(r) != VG_STATUS_MANDATORY) {
            fprintf(stderr, "bench: check(%s) is not MANDATORY\n", blocked[i]);
            ok = 0;
        }
        vg_result_free(r);
    }
    for (int i = 0; i < 2; i++) {
        vg_result *r = NULL;
        vg_client_check(&r, client, prompting[i]);
        /* MANDATORY has no dismiss label; the other four texts are always there. */
        if (vg_result_status(r) != (i ? VG_STATUS_OPTIONAL : VG_STATUS_MANDATORY) || prompt_texts(r) != 4 + i) {
            fprintf(stderr, "bench: check(%s) does not prompt with every text\n", prompting[i]);
            ok = 0;
        }
        vg_result_free(r);
    }
    return ok;
}

int main(void) {
    /* Prompts are built in the user's language: make it one with a catalog. */
    setenv("LANG", "de_DE.UTF-8", 1);
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, document, sizeof document - 1) != (ssize_t)(sizeof document - 1)) {
        perror("bench: temporary gate document");
        return 1;
    }
    close(fd);
    /* A document changed in the last 2 s is re-read on every check (its mtime
     * could hide a second write); a deployed one is older than that. */
    sleep(3);

    int status = 1;
    if (vg_client_new(&client) != VG_OK || vg_client_set(client, "source", path) != VG_OK ||
        vg_client_set(client, "session_scope", "process") != VG_OK) {
        fprintf(stderr, "bench: client setup failed: %s\n",
                client ? vg_client_last_error(client) : "vg_client_new");
        goto out;
    }
    if (!sane()) goto out;

    static const struct {
        const char *name, *baseline_name, *figure; /* figure: the summary's name, or NULL */
        loop_fn library, baseline;
    } rows[] = {
        {"vg_version_compare", "plain_compare", "compare", compare_library, compare_plain},
        {"vg_decide", "plain_decide", "decide", decide_library, decide_plain},
        {"vg_decide M/O/U", "plain_decide", NULL, decide3_library, decide3_plain},
        {"vg_client_check", "stat + decide", "warm_check", check_library, stat_decide_plain},
        {"check, prompting", "stat + decide", "prompting_check", prompting_library, stat_decide_plain},
        {"check, 4 blocked", "stat + decide", "blocked_check", blocked_library, stat_decide_plain},
    };
    const char *figures_path = getenv("VG_BENCH_FIGURES");
    FILE *figures = figures_path ? fopen(figures_path, "a") : NULL;
    if (figures_path && !figures) {
        perror(figures_path);
        goto out;
    }

    printf("VersionGate %s, median of %d rounds of N calls (~20-50 ms a round), library and baseline in turn; ratio: the median of the rounds' ratios\n\n",
           vg_library_version(), ROUNDS);
    printf("%-20s %12s %10s   %-15s %12s %10s %9s\n", "function", "ns/call", "N",
           "baseline", "ns/call", "N", "ratio");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pair_timing t = time_pair(rows[i].library, rows[i].baseline);
        printf("%-20s %12.1f %10ld   %-15s %12.1f %10ld %8.2fx\n", rows[i].name, t.lib_ns, t.n_lib,
               rows[i].baseline_name, t.base_ns, t.n_base, t.ratio);
        if (figures && rows[i].figure) fprintf(figures, "%s %.2f\n", rows[i].figure, t.ratio);
    }
    printf("\nbaseline: hand-written C, dotted numeric versions only, no validation;\n"
           "for a check, the stat(2) of the document it must make, then that decide.\n");
    status = 0;
    if (figures) fclose(figures);
out:
    vg_client_free(client);
    unlink(path);
    return status;
}
