/* A private scratch home for the C test programs that drive the library
 * from many checks (stress.c, rss_growth.c): a temporary directory removed
 * at exit, the XDG directories the library writes to inside it, no locale
 * variables, and where the gate document and its replacement are written.
 * Include after defining `static const char program[]` (messages' prefix). */
#ifndef VG_TEST_SCRATCH_HOME_H
#define VG_TEST_SCRATCH_HOME_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char dir[256], gate_path[300], tmp_path[300];

static void fatal(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", program, what, strerror(errno));
    exit(2);
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(path);
}

static void cleanup(void) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void private_dir(const char *name)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (mkdir(p, 0700) != 0) fatal(p);
    setenv(name, p, 1);
}

/* $TMPDIR (or /tmp)/vg-<program>.XXXXXX, removed at exit, as the home. */
static void make_scratch_home(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/vg-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", program);
    if (mkdtemp(dir) == NULL) fatal("mkdtemp");
    atexit(cleanup);
    private_dir("XDG_RUNTIME_DIR");
    private_dir("XDG_CACHE_HOME");
    private_dir("XDG_STATE_HOME");
    unsetenv("LC_ALL"), unsetenv("LC_MESSAGES"), unsetenv("LANG"), unsetenv("LANGUAGE");
    snprintf(gate_path, sizeof gate_path, "%s/gate.json", dir);
    snprintf(tmp_path, sizeof tmp_path, "%s/.gate.json.new", dir);
}

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
