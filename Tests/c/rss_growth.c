/*
 * rss_growth.c — does memory stay flat over many checks?
 *
 *   rss_growth [-c N,N,...] [-l PERCENT] [-r REWRITE_EVERY]
 *
 * Checks in a loop, one thread, and prints VmRSS (from /proc/self/status)
 * after each checkpoint count (default 10000,1000000). Fails (exit 1) when
 * the RSS at the last checkpoint exceeds the RSS at the first by more than
 * PERCENT (default 1). A steady leak of even a few bytes per check shows:
 * 16 bytes x 1M checks is 16 MB, far more than 1 % of the process.
 *
 * Each iteration is one check, as a launcher does it, reading every getter
 * and vg_result_json and freeing the result:
 *  - odd iterations use vg_client_check on a client, even ones vg_check
 *    (the process-wide client);
 *  - every 1000 iterations the client is freed and a new one configured;
 *  - versions rotate through MANDATORY, OPTIONAL and UP_TO_DATE answers;
 *  - the gate document is atomically replaced by the other of two documents
 *    (other thresholds, so the once-per-session marker changes too) after
 *    3000 and 6000 checks and then every REWRITE_EVERY checks (default
 *    100000; 0 = never): a changed file is re-read on every check for 2 s,
 *    then the parsed copy is reused, so both the parse and the cached path
 *    run throughout.
 * The document is written 2.2 s before the first check, so by the first
 * checkpoint (10000) every path has run once: the cached one, client
 * re-creation (1000), a rewrite, a re-parse and a new session marker
 * (3000), the way back to a document already seen (6000). VmRSS also
 * counts the library's code pages (RssFile), which the kernel maps in
 * 4-64 kB steps as paths first run and as the page cache allows; RssAnon
 * (the heap) is where a leak would show, and is printed alongside.
 * The process gets private XDG directories; they are removed at exit.
 *
 * Build: cc -std=c11 -O1 -Iinclude Tests/c/rss_growth.c -Lbuild/lib -lversiongate
 * Output: one "rss: N checks: VmRSS K kB (RssAnon A, RssFile F) (T s)" line
 *         per checkpoint (RssFile: code pages of the .so faulted in as new
 *         paths run; RssAnon: the heap, where a leak would show), then
 *         "rss: growth X.XX % from N1 to N2 checks (limit L %): ok|FAIL".
 */
#define _GNU_SOURCE

#include "versiongate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char program[] = "rss";
#include "scratch_home.h"


static const char *const DOC[2] = {
    "{\"min_required_version_linux\": \"1.0.39\", \"latest_version_linux\": \"1.0.41\", "
    "\"update_message\": \"rss document A\", \"update_url_linux\": \"https://flathub.org/apps/org.example.RssA\"}\n",
    "{\"min_required_version_linux\": \"1.0.38\", \"latest_version_linux\": \"1.0.42\", "
    "\"update_message\": \"rss document B\", \"update_url_linux\": \"https://flathub.org/apps/org.example.RssB\"}\n",
};
static const char *const VERSIONS[] = {"1.0.37", "1.0.40", "1.0.42", "2.0"};

static void write_doc(int k)
{
    FILE *f = fopen(tmp_path, "w");
    if (f == NULL) fatal(tmp_path);
    if (fputs(DOC[k], f) == EOF || fclose(f) != 0) fatal(tmp_path);
    if (rename(tmp_path, gate_path) != 0) fatal(gate_path);
}

/* VmRSS, and its anonymous (heap) and file-backed (code) parts, in kB. */
struct rss { long vm, anon, file; };

static struct rss read_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    struct rss r = {-1, -1, -1};
    if (f == NULL) fatal("/proc/self/status");
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "VmRSS: %ld kB", &r.vm);
        sscanf(line, "RssAnon: %ld kB", &r.anon);
        sscanf(line, "RssFile: %ld kB", &r.file);
    }
    fclose(f);
    return r;
}

static vg_client *new_client(void)
{
    vg_client *c = NULL;
    if (vg_client_new(&c) != VG_OK || vg_client_set(c, "source", gate_path) != VG_OK ||
        vg_client_set(c, "session_scope", "process") != VG_OK) {
        fprintf(stderr, "rss: cannot configure a client\n");
        exit(2);
    }
    return c;
}

static size_t touch(const vg_result *r)
{
    const char *s[] = {vg_result_title(r), vg_result_message(r), vg_result_action_label(r),
                       vg_result_dismiss_label(r), vg_result_store_url(r), vg_result_error_message(r),
                       vg_result_min_required(r), vg_result_latest(r), vg_result_json(r)};
    size_t n = (size_t)vg_result_status(r) + (size_t)vg_result_should_prompt(r) + (size_t)-vg_result_error(r);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i]) n += strlen(s[i]);
    return n;
}

int main(int argc, char **argv)
{
    long checkpoints[16] = {10000, 1000000};
    int ncheckpoints = 2;
    double limit = 1.0;
    long rewrite_every = 100000;
    int opt;
    while ((opt = getopt(argc, argv, "c:l:r:")) != -1) {
        switch (opt) {
        case 'c': {
            ncheckpoints = 0;
            for (char *p = optarg; *p && ncheckpoints < 16;) {
                checkpoints[ncheckpoints++] = strtol(p, &p, 10);
                if (*p == ',') p++;
            }
            break;
        }
        case 'l': limit = atof(optarg); break;
        case 'r': rewrite_every = atol(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-c N,N,...] [-l PERCENT] [-r REWRITE_EVERY]\n", argv[0]);
            return 2;
        }
    }
    for (int i = 0; i < ncheckpoints; i++)
        if (checkpoints[i] < 1 || (i > 0 && checkpoints[i] <= checkpoints[i - 1])) {
            fprintf(stderr, "rss: checkpoints must be increasing positive counts\n");
            return 2;
        }
    if (ncheckpoints < 2) {
        fprintf(stderr, "rss: need at least two checkpoints\n");
        return 2;
    }

    make_scratch_home();
    write_doc(0);
    struct timespec settle = {2, 200000000}; /* older than the 2 s "racy" window */
    nanosleep(&settle, NULL);

    /* Before the first measurement, run what measuring runs: stdout's
     * buffer is allocated on first use, and printf's number formatting and
     * the /proc reader are code pages of libc like any other. */
    struct rss warm = read_rss();
    printf("rss: start: VmRSS %ld kB (RssAnon %ld, RssFile %ld) (%.1f s); checkpoints", warm.vm, warm.anon,
           warm.file, 0.0);
    for (int i = 0; i < ncheckpoints; i++) printf(" %ld", checkpoints[i]);
    printf("\n");
    fflush(stdout);

    vg_client *client = new_client();
    long rss[16];
    size_t sink = 0;
    int next = 0, doc = 0;
    double t0 = now_s();
    for (long i = 1; next < ncheckpoints; i++) {
        const char *version = VERSIONS[(i / 2) % 4];
        vg_result *r = NULL;
        if (i % 2)
            vg_client_check(&r, client, version);
        else
            vg_check(&r, gate_path, version);
        sink += touch(r);
        vg_result_free(r);
        if (i % 1000 == 0) {
            vg_client_free(client);
            client = new_client();
        }
        if (i == 3000 || i == 6000 || (rewrite_every > 0 && i > 6000 && (i - 6000) % rewrite_every == 0))
            write_doc(doc ^= 1);
        if (i == checkpoints[next]) {
            struct rss now = read_rss();
            rss[next] = now.vm;
            printf("rss: %ld checks: VmRSS %ld kB (RssAnon %ld, RssFile %ld) (%.1f s)\n", i, now.vm, now.anon,
                   now.file, now_s() - t0);
            fflush(stdout);
            next++;
        }
    }
    vg_client_free(client);

    double growth = 100.0 * (double)(rss[ncheckpoints - 1] - rss[0]) / (double)rss[0];
    int ok = growth <= limit;
    printf("rss: growth %.2f %% from %ld to %ld checks (limit %.2f %%): %s\n", growth, checkpoints[0],
           checkpoints[ncheckpoints - 1], limit, ok ? "ok" : "FAIL");
    return sink == 0 ? 2 : ok ? 0 : 1;
}
