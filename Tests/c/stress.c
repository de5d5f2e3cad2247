/*
 * stress.c — many threads checking while the gate document changes under them.
 *
 *   stress [-t THREADS] [-n CHECKS_PER_THREAD]
 *
 * Defaults: 8 threads x 100000 checks. Each thread cycles through three ways
 * of checking: a client shared by all threads, its own client (freed and
 * re-created every 1000 checks) and vg_check (the process-wide client).
 * Meanwhile a writer thread rewrites the one local gate document, alternating
 * an atomic replace (write a temporary file, rename it over) and an in-place
 * rewrite (O_TRUNC, write), cycling through four documents with different
 * thresholds, messages and store URLs.
 *
 * Every result must be one a real document could give:
 *  - VG_OK: min_required and latest name one of the four documents, the
 *    status is the gate's (by vg_version_compare) for them, message and
 *    store URL are that document's (no mix of two documents), the title is
 *    present exactly for MANDATORY/OPTIONAL, MANDATORY always prompts,
 *    UP_TO_DATE never does;
 *  - VG_ECONFIG (a reader caught the in-place rewrite half-way): UP_TO_DATE,
 *    no prompt, no thresholds, an error message;
 *  - anything else fails the run.
 * Every getter (and vg_result_json) is read on every result, and everything
 * is freed, so AddressSanitizer, ThreadSanitizer and valgrind see all of it.
 *
 * The process gets private XDG directories and no locale variables before
 * the library is first used; they are removed at exit.
 *
 * Build (scripts/proof does this, also with -fsanitize=...):
 *   cc -std=c11 -O1 -g -pthread -Iinclude Tests/c/stress.c \
 *      -Lbuild/lib -lversiongate -o stress
 *   LD_LIBRARY_PATH=build/lib ./stress -n 1000
 *
 * Prints one summary line "stress: ... 0 bad" and exits 0, or prints the
 * first bad results and exits 1 (2 on a setup error).
 */
#define _GNU_SOURCE

#include "versiongate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char program[] = "stress";
#include "scratch_home.h"

/* ------------------------------------------------------------ documents */

typedef struct {
    const char *min_required, *latest, *message, *url;
} gate_doc;

static const gate_doc DOCS[] = {
    {"1.0.39", "1.0.41", "stress document zero", "https://flathub.org/apps/org.example.Stress0"},
    {"1.0.40", "1.0.42", "stress document one", "https://flathub.org/apps/org.example.Stress1"},
    {"1.0.30", "1.0.40", "stress document two", "https://flathub.org/apps/org.example.Stress2"},
    {"1.1.0", "1.1.0", "stress document three", "https://flathub.org/apps/org.example.Stress3"},
};
#define NDOCS (int)(sizeof DOCS / sizeof DOCS[0])

/* Below, between and above the thresholds in play. */
static const char *const VERSIONS[] = {"1.0.38", "1.0.40", "1.0.41", "1.0.42", "1.1.0", "2.0"};
#define NVERSIONS (int)(sizeof VERSIONS / sizeof VERSIONS[0])

static char doc_text[NDOCS][512];
static size_t doc_len[NDOCS];


static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Atomic: a reader sees the old or the new document, never a mix. */
static void replace_atomically(int k)
{
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fatal(tmp_path);
    if (write_all(fd, doc_text[k], doc_len[k]) != 0) fatal(tmp_path);
    if (close(fd) != 0) fatal(tmp_path);
    if (rename(tmp_path, gate_path) != 0) fatal(gate_path);
}

/* In place: a reader may see an empty or a truncated document. */
static void rewrite_in_place(int k)
{
    int fd = open(gate_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fatal(gate_path);
    if (write_all(fd, doc_text[k], doc_len[k]) != 0) fatal(gate_path);
    if (close(fd) != 0) fatal(gate_path);
}

/* ------------------------------------------------------------- checking */

static atomic_int readers_done;
static atomic_long rewrites;
static atomic_long count_status[3], count_econfig, bad;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static int version_cmp(const char *a, const char *b)
{
    int c = 0;
    if (vg_version_compare(&c, a, b) != VG_OK) {
        fprintf(stderr, "stress: vg_version_compare(%s, %s) failed\n", a, b);
        exit(2);
    }
    return c;
}

static int expected_status(const char *version, const gate_doc *d)
{
    if (version_cmp(version, d->min_required) < 0) return VG_STATUS_MANDATORY;
    if (version_cmp(version, d->latest) < 0) return VG_STATUS_OPTIONAL;
    return VG_STATUS_UP_TO_DATE;
}

static int same(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Reads every field; returns NULL when the result is possible, else why not. */
static const char *judge(int rc, const vg_result *r, const char *version, int *status_out)
{
    if (r == NULL) return "no result";
    int status = (int)vg_result_status(r);
    int prompt = vg_result_should_prompt(r);
    int err = vg_result_error(r);
    const char *title = vg_result_title(r), *message = vg_result_message(r);
    const char *action = vg_result_action_label(r), *dismiss = vg_result_dismiss_label(r);
    const char *url = vg_result_store_url(r), *why = vg_result_error_message(r);
    const char *min = vg_result_min_required(r), *latest = vg_result_latest(r);
    const char *json = vg_result_json(r);
    *status_out = status;

    /* Touch every byte of every string (a use-after-free or overrun shows). */
    size_t total = 0;
    const char *all[] = {title, message, action, dismiss, url, why, min, latest, json};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) total += strlen(all[i]);
    (void)total;

    if (rc != err) return "return code differs from vg_result_error";
    if (json == NULL || json[0] != '{') return "vg_result_json is not an object";
    if (status == VG_STATUS_MANDATORY && !prompt) return "MANDATORY does not prompt";
    if (status == VG_STATUS_UP_TO_DATE && prompt) return "UP_TO_DATE prompts";
    if ((status != VG_STATUS_UP_TO_DATE) != (title != NULL && message != NULL && action != NULL))
        return "title/message/action present iff MANDATORY or OPTIONAL violated";
    if ((status == VG_STATUS_OPTIONAL) != (dismiss != NULL))
        return "dismiss label present iff OPTIONAL violated";

    if (err == VG_ECONFIG) {
        if (status != VG_STATUS_UP_TO_DATE) return "VG_ECONFIG but not UP_TO_DATE";
        if (min != NULL || latest != NULL) return "VG_ECONFIG with thresholds";
        if (why == NULL || why[0] == '\0') return "VG_ECONFIG without a message";
        return NULL;
    }
    if (err != VG_OK) return "unexpected error code";
    if (why != NULL) return "VG_OK with an error message";

    for (int k = 0; k < NDOCS; k++) {
        const gate_doc *d = &DOCS[k];
        if (!same(min, d->min_required) || !same(latest, d->latest)) continue;
        if (status != expected_status(version, d)) return "status is not the gate's for these thresholds";
        if (status != VG_STATUS_UP_TO_DATE && !same(message, d->message))
            return "message from another document than the thresholds";
        if (status != VG_STATUS_UP_TO_DATE && !same(url, d->url))
            return "store URL from another document than the thresholds";
        return NULL;
    }
    return "thresholds are not those of any document written";
}

static void record(int rc, vg_result *r, const char *version, const char *how)
{
    int status = -1;
    const char *why = judge(rc, r, version, &status);
    if (why != NULL) {
        long n = atomic_fetch_add(&bad, 1);
        if (n < 10) {
            pthread_mutex_lock(&report_lock);
            fprintf(stderr, "stress: BAD (%s, version %s, rc %d): %s\n  %s\n", how, version, rc,
                    why, r && vg_result_json(r) ? vg_result_json(r) : "(no json)");
            pthread_mutex_unlock(&report_lock);
        }
    } else if (rc == VG_ECONFIG) {
        atomic_fetch_add_explicit(&count_econfig, 1, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&count_status[status], 1, memory_order_relaxed);
    }
    vg_result_free(r);
}

static vg_client *new_client(void)
{
    vg_client *c = NULL;
    if (vg_client_new(&c) != VG_OK || vg_client_set(c, "source", gate_path) != VG_OK ||
        vg_client_set(c, "session_scope", "process") != VG_OK) {
        fprintf(stderr, "stress: cannot configure a client\n");
        exit(2);
    }
    return c;
}

static vg_client *shared_client;
static long checks_per_thread = 100000;
static pthread_barrier_t start_line;

static void *reader(void *arg)
{
    long t = (long)(intptr_t)arg;
    vg_client *own = new_client();
    pthread_barrier_wait(&start_line);
    for (long i = 0; i < checks_per_thread; i++) {
        const char *version = VERSIONS[(t + i) % NVERSIONS];
        vg_result *r = NULL;
        int rc;
        switch (i % 3) {
        case 0:
            rc = vg_client_check(&r, shared_client, version);
            record(rc, r, version, "shared client");
            break;
        case 1:
            rc = vg_client_check(&r, own, version);
            record(rc, r, version, "own client");
            break;
        default:
            rc = vg_check(&r, gate_path, version);
            record(rc, r, version, "vg_check");
            break;
        }
        if (i % 1000 == 999) { /* client lifetimes under load */
            vg_client_free(own);
            own = new_client();
        }
    }
    vg_client_free(own);
    atomic_fetch_add(&readers_done, 1);
    return NULL;
}

static int nthreads = 8;

static void *writer(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start_line);
    for (long n = 0; atomic_load(&readers_done) < nthreads; n++) {
        int k = (int)((n / 2) % NDOCS);
        if (n % 2 == 0)
            replace_atomically(k);
        else
            rewrite_in_place(k);
        atomic_fetch_add(&rewrites, 1);
        /* ~0.2 ms between rewrites: many readers see each version of the file. */
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

/* ---------------------------------------------------------------- setup */

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "t:n:")) != -1) {
        switch (opt) {
        case 't': nthreads = atoi(optarg); break;
        case 'n': checks_per_thread = atol(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-t THREADS] [-n CHECKS_PER_THREAD]\n", argv[0]);
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > 256 || checks_per_thread < 1) {
        fprintf(stderr, "stress: bad -t or -n\n");
        return 2;
    }

    make_scratch_home();

    for (int k = 0; k < NDOCS; k++) {
        int n = snprintf(doc_text[k], sizeof doc_text[k],
                         "{\"min_required_version_linux\": \"%s\", \"latest_version_linux\": \"%s\", "
                         "\"update_message\": \"%s\", \"update_url_linux\": \"%s\"}\n",
                         DOCS[k].min_required, DOCS[k].latest, DOCS[k].message, DOCS[k].url);
        doc_len[k] = (size_t)n;
    }
    replace_atomically(0);

    shared_client = new_client();
    pthread_t readers[256], writer_thread;
    pthread_barrier_init(&start_line, NULL, (unsigned)nthreads + 1);
    double t0 = now_s();
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&readers[t], NULL, reader, (void *)(intptr_t)t) != 0) fatal("pthread_create");
    if (pthread_create(&writer_thread, NULL, writer, NULL) != 0) fatal("pthread_create");
    for (int t = 0; t < nthreads; t++) pthread_join(readers[t], NULL);
    pthread_join(writer_thread, NULL);
    double elapsed = now_s() - t0;
    vg_client_free(shared_client);
    pthread_barrier_destroy(&start_line);

    long total = (long)nthreads * checks_per_thread;
    long seen = atomic_load(&count_status[0]) + atomic_load(&count_status[1]) +
                atomic_load(&count_status[2]) + atomic_load(&count_econfig) + atomic_load(&bad);
    if (seen != total) {
        fprintf(stderr, "stress: %ld results for %ld checks\n", seen, total);
        atomic_fetch_add(&bad, 1);
    }
    printf("stress: %d threads x %ld checks = %ld in %.1f s (%.0f/s), %ld rewrites; "
           "MANDATORY %ld, OPTIONAL %ld, UP_TO_DATE %ld, ECONFIG (torn in-place rewrite) %ld; %ld bad\n",
           nthreads, checks_per_thread, total, elapsed, (double)total / elapsed, atomic_load(&rewrites),
           atomic_load(&count_status[2]), atomic_load(&count_status[1]), atomic_load(&count_status[0]),
           atomic_load(&count_econfig), atomic_load(&bad));
    return atomic_load(&bad) == 0 ? 0 : 1;
}
