/*
 * abi_test.c — the C ABI of libversiongate.so, called the way a C launcher
 * calls it. Every function of versiongate.h gets NULL in each pointer
 * argument; version and gate tables go through the ABI; non-UTF-8 and 1 MB
 * inputs; missing, invalid and oversized gate documents.
 *
 * Build and run (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -ISources/VersionGateC/include \
 *       Tests/c/abi_test.c -Lbuild/lib -lversiongate -o abi_test
 *   LD_LIBRARY_PATH=build/lib ./abi_test
 *
 * Prints one line per failed assertion, then "abi: N passed, M failed";
 * exits 1 on any failure.
 */
#define _XOPEN_SOURCE 700

#include "versiongate.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define CHECK_EQ(got, want) check_eq_((long)(got), (long)(want), #got, __LINE__)

static void check_eq_(long got, long want, const char *what, int line)
{
    if (got == want) {
        passed++;
    } else {
        failed++;
        printf("FAIL abi_test.c:%d: %s == %ld, expected %ld\n", line, what, got, want);
    }
}

/* ---------------------------------------------------------------- helpers */

static char tmpdir[256];

/* A path under the test's directory; never freed (a short-lived test). */
static const char *path_in_tmp(const char *name)
{
    size_t n = strlen(tmpdir) + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (!p) exit(2);
    snprintf(p, n, "%s/%s", tmpdir, name);
    return p;
}

static const char *write_file(const char *name, const char *data, size_t len)
{
    const char *path = path_in_tmp(name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    if (len && fwrite(data, 1, len, f) != len) {
        perror(path);
        exit(2);
    }
    fclose(f);
    return path;
}

static const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

/* A valid UTF-8 check, so results can be held to "strings are UTF-8". */
static int utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n;
        unsigned cp;
        if (*p < 0x80) { p++; continue; }
        if ((*p & 0xE0) == 0xC0) { n = 1; cp = *p & 0x1F; }
        else if ((*p & 0xF0) == 0xE0) { n = 2; cp = *p & 0x0F; }
        else if ((*p & 0xF8) == 0xF0) { n = 3; cp = *p & 0x07; }
        else return 0;
        p++;
        for (int i = 0; i < n; i++, p++) {
            if ((*p & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (*p & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
    }
    return 1;
}

/* Every getter of an UP_TO_DATE / fail-open result. */
static void check_fail_open(const vg_result *r, int rc, int want)
{
    CHECK(r != NULL);
    CHECK_EQ(rc, want);
    CHECK_EQ(vg_result_error(r), rc);
    CHECK_EQ(vg_result_status(r), VG_STATUS_UP_TO_DATE);
    CHECK_EQ(vg_result_should_prompt(r), 0);
    CHECK(vg_result_title(r) == NULL);
    CHECK(vg_result_message(r) == NULL);
    CHECK(vg_result_release_notes(r) == NULL);
    CHECK(vg_result_action_label(r) == NULL);
    CHECK(vg_result_dismiss_label(r) == NULL);
    CHECK(vg_result_error_message(r) != NULL);
    CHECK(vg_result_json(r) != NULL && vg_result_json(r)[0] == '{');
    CHECK(vg_result_json(r) != NULL && utf8_ok(vg_result_json(r)));
    CHECK(vg_result_error_message(r) == NULL || utf8_ok(vg_result_error_message(r)));
}

/* A result that was never written must be noticed: *out starts as garbage
 * (never dereferenced); an unwritten or NULL *out is a failure and becomes
 * NULL so the test goes on safely. */
#define POISON ((vg_result *)(void *)&passed)

static vg_result *written(vg_result *r, int rc, int line)
{
    if (r == POISON || r == NULL) {
        failed++;
        printf("FAIL abi_test.c:%d: no result written to *out (rc %d)\n", line, rc);
        return NULL;
    }
    passed++;
    return r;
}

#define CLIENT_CHECK(r, rc, c, v) \
    do { (r) = POISON; (rc) = vg_client_check(&(r), (c), (v)); \
         (r) = written((r), (rc), __LINE__); } while (0)
#define ONE_SHOT_CHECK(r, rc, src, v) \
    do { (r) = POISON; (rc) = vg_check(&(r), (src), (v)); \
         (r) = written((r), (rc), __LINE__); } while (0)

/* ------------------------------------------------------------------ tests */

static void test_library(void)
{
    static const int codes[] = {VG_OK, VG_EINVAL, VG_EVERSION, VG_ECONFIG,
                                VG_ENOMEM, VG_EINTERNAL};
    const char *v = vg_library_version();
    CHECK(v != NULL && strcmp(v, VG_VERSION_STRING) == 0);

    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = vg_strerror(codes[i]);
        CHECK(s != NULL && s[0] != '\0' && strcmp(s, "unknown error") != 0);
        for (size_t j = 0; j < i; j++)
            CHECK(s != NULL && strcmp(s, vg_strerror(codes[j])) != 0);
    }
    {
        /* Codes are append-only (negative, growing): these stay unknown. */
        static const int unknown[] = {12345, -999, 1, INT_MIN, INT_MAX};
        for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
            const char *s = vg_strerror(unknown[i]);
            CHECK(s != NULL && strcmp(s, "unknown error") == 0);
        }
    }
    vg_free(NULL);
    passed++; /* vg_free(NULL) returned */
}

struct cmp_row { const char *a, *b; int want; };

static void test_versions(void)
{
    static const struct cmp_row rows[] = {
        {"1.0", "1.0.0", 0}, {"1.01", "1.1", 0}, {"v1.2.3", "1.2.3", 0},
        {" \t1.2.3\r\n", "V1.2.3", 0}, {"1.0.0+a", "1.0.0+b", 0},
        {"1.9", "1.10", -1}, {"1.10", "1.9", 1}, {"1.0.39", "1.0.41", -1},
        {"2.0.0-beta", "2.0.0", -1}, {"1.0.0-alpha", "1.0.0-alpha.1", -1},
        {"1.0.0-alpha.1", "1.0.0-alpha.beta", -1}, {"1.0.0-beta.2", "1.0.0-beta.11", -1},
        {"1.0.0-rc.1", "1.0.0", -1}, {"1.0.0-1", "1.0.0-a", -1},
        {"1.0.0-99999999999999999999", "1.0.0-100000000000000000000", -1},
        {"9223372036854775807", "9223372036854775806", 1},
    };
    static const char *const invalid[] = {
        "", "abc", "1..2", ".1", "1.", "+1", "-2", "1.0b1", "2.0 (123)", "=1.0",
        "1.0-", "1.0+", "1 .0", "9223372036854775808", "1.0\xff", "\xc3\x28",
        "1.\xd9\xa1", /* ARABIC-INDIC DIGIT ONE */
    };
    int out, rc;

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        out = 42;
        rc = vg_version_compare(&out, rows[i].a, rows[i].b);
        if (rc != VG_OK || out != rows[i].want)
            printf("FAIL compare(\"%s\", \"%s\") -> rc %d out %d, expected %d\n",
                   rows[i].a, rows[i].b, rc, out, rows[i].want);
        CHECK(rc == VG_OK && out == rows[i].want);
    }
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        out = 42;
        rc = vg_version_compare(&out, invalid[i], "1.0");
        int rc2 = vg_version_compare(&out, "1.0", invalid[i]);
        if (rc != VG_EVERSION || rc2 != VG_EVERSION || out != 42)
            printf("FAIL invalid version #%zu -> rc %d/%d out %d\n", i, rc, rc2, out);
        CHECK(rc == VG_EVERSION && rc2 == VG_EVERSION && out == 42);
    }

    /* NULL in each pointer argument */
    out = 42;
    CHECK_EQ(vg_version_compare(NULL, "1", "2"), VG_EINVAL);
    CHECK_EQ(vg_version_compare(&out, NULL, "2"), VG_EINVAL);
    CHECK_EQ(vg_version_compare(&out, "1", NULL), VG_EINVAL);
    CHECK_EQ(vg_version_compare(NULL, NULL, NULL), VG_EINVAL);
    CHECK_EQ(out, 42);
}

struct decide_row { const char *cur, *min, *latest; vg_status want; };

static void test_decide(void)
{
    static const struct decide_row rows[] = {
        {"1.0.38", "1.0.39", "1.0.41", VG_STATUS_MANDATORY},
        {"1.0.39", "1.0.39", "1.0.41", VG_STATUS_OPTIONAL},
        {"1.0.40", "1.0.39", "1.0.41", VG_STATUS_OPTIONAL},
        {"1.0.41", "1.0.39", "1.0.41", VG_STATUS_UP_TO_DATE},
        {"1.0.0", "2.0.0", "1.5.0", VG_STATUS_MANDATORY},
        {"1.0", "", "1.1", VG_STATUS_OPTIONAL},
        {"1.0", "abc", "1.1", VG_STATUS_OPTIONAL},
        {"1.0", "2.0", "xyz", VG_STATUS_MANDATORY},
        {"1.0", NULL, "1.1", VG_STATUS_OPTIONAL},
        {"1.0", "2.0", NULL, VG_STATUS_MANDATORY},
        {"1.0", NULL, NULL, VG_STATUS_UP_TO_DATE},
        {NULL, "9", "9", VG_STATUS_UP_TO_DATE},
        {"abc", "9", "9", VG_STATUS_UP_TO_DATE},
        {"\xff", "9", "9", VG_STATUS_UP_TO_DATE},
        {"1.0", "\xff", "\xc3\x28", VG_STATUS_UP_TO_DATE},
        {"2.0.0-rc.1", "2.0.0", NULL, VG_STATUS_MANDATORY},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        vg_status got = vg_decide(rows[i].cur, rows[i].min, rows[i].latest);
        if (got != rows[i].want)
            printf("FAIL decide row %zu -> %d, expected %d\n", i, (int)got, (int)rows[i].want);
        CHECK(got == rows[i].want);
    }
}

static void test_big_inputs(void)
{
    size_t n = 1024 * 1024;
    char *big = malloc(n + 1);
    int out = 42;
    if (!big) exit(2);
    memset(big, '9', n);
    big[n] = '\0';
    CHECK_EQ(vg_version_compare(&out, big, "1"), VG_EVERSION);
    CHECK_EQ(out, 42);
    CHECK_EQ(vg_decide(big, "9", "9"), VG_STATUS_UP_TO_DATE);
    CHECK_EQ(vg_decide("1", big, "2"), VG_STATUS_OPTIONAL);

    vg_client *c = NULL;
    CHECK_EQ(vg_client_new(&c), VG_OK);
    CHECK_EQ(vg_client_set(c, big, "x"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL);
    CHECK_EQ(vg_client_set(c, "locale", big), VG_EINVAL);
    CHECK_EQ(vg_client_set(c, "platform", big), VG_EINVAL);
    CHECK_EQ(vg_client_set(c, "locale", "de\xff"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "locale"));
    CHECK(vg_client_last_error(c) != NULL && utf8_ok(vg_client_last_error(c)));
    CHECK_EQ(vg_client_set(c, "platform", "\xc3\xa9"), VG_EINVAL);

    vg_result *r;
    int rc;
    CLIENT_CHECK(r, rc, c, big); /* no source and a huge version */
    CHECK(rc == VG_EVERSION || rc == VG_ECONFIG);
    check_fail_open(r, rc, rc);
    vg_result_free(r);

    /* a 1 MB source path: accepted as a path or refused, never a crash */
    big[0] = '/';
    rc = vg_client_set(c, "source", big);
    CHECK(rc == VG_OK || rc == VG_EINVAL);
    CLIENT_CHECK(r, rc, c, "1.0");
    check_fail_open(r, rc, VG_ECONFIG);
    vg_result_free(r);
    vg_client_free(c);
    free(big);
}

static void test_client_nulls(void)
{
    vg_client *c = NULL;
    vg_result *r;
    int rc;

    CHECK_EQ(vg_client_new(NULL), VG_EINVAL);
    vg_client_free(NULL);
    CHECK(vg_client_last_error(NULL) != NULL);

    CHECK_EQ(vg_client_new(&c), VG_OK);
    CHECK(c != NULL);
    CHECK(vg_client_last_error(c) == NULL);

    CHECK_EQ(vg_client_set(NULL, "source", "/x"), VG_EINVAL);
    CHECK_EQ(vg_client_set(c, NULL, "/x"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL);
    CHECK_EQ(vg_client_set(c, NULL, NULL), VG_EINVAL);
    CHECK_EQ(vg_client_set(c, "no_such_key", "x"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "no_such_key"));
    CHECK_EQ(vg_client_set(c, "platform", "NOT OK"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "platform"));
    CHECK_EQ(vg_client_set(c, "source", "http://example.com/gate.json"), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "source"));
    CHECK_EQ(vg_client_set(c, "session_scope", "forever"), VG_EINVAL);
    /* NULL value: back to the default */
    CHECK_EQ(vg_client_set(c, "source", NULL), VG_OK);
    CHECK(vg_client_last_error(c) == NULL);
    CHECK_EQ(vg_client_set(c, "platform", NULL), VG_OK);
    CHECK_EQ(vg_client_set(c, "locale", NULL), VG_OK);
    CHECK_EQ(vg_client_set(c, "session_scope", NULL), VG_OK);
    CHECK_EQ(vg_client_set(c, "session_scope", "process"), VG_OK);

    /* vg_client_watch: NULL client or fd; nothing to watch; unwatch when not watching */
    {
        int fd = 42;
        CHECK_EQ(vg_client_watch(NULL, &fd), VG_EINVAL);
        CHECK_EQ(vg_client_watch(c, NULL), VG_EINVAL);
        CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "fd"));
        CHECK_EQ(vg_client_watch(c, &fd), VG_ECONFIG);   /* no source set */
        CHECK(fd == -1);
        CHECK(vg_client_last_error(c) != NULL && strstr(vg_client_last_error(c), "source"));
        CHECK_EQ(vg_client_unwatch(NULL), VG_EINVAL);
        CHECK_EQ(vg_client_unwatch(c), VG_OK);
    }

    /* vg_client_check: NULL out, NULL client, NULL version */
    CHECK_EQ(vg_client_check(NULL, c, "1.0"), VG_EINVAL);
    CHECK_EQ(vg_client_check(NULL, NULL, NULL), VG_EINVAL);
    CLIENT_CHECK(r, rc, NULL, "1.0");
    check_fail_open(r, rc, VG_EINVAL);
    vg_result_free(r);
    CLIENT_CHECK(r, rc, c, NULL);
    check_fail_open(r, rc, VG_EINVAL);
    vg_result_free(r);
    CLIENT_CHECK(r, rc, NULL, NULL);
    check_fail_open(r, rc, VG_EINVAL);
    vg_result_free(r);
    /* no source set */
    CLIENT_CHECK(r, rc, c, "1.0");
    check_fail_open(r, rc, VG_ECONFIG);
    vg_result_free(r);
    vg_client_free(c);

    /* vg_check: NULL out, NULL source, NULL version */
    const char *doc = write_text("nulls.json", "{\"min_required_version_linux\":\"9\"}");
    CHECK_EQ(vg_check(NULL, doc, "1.0"), VG_EINVAL);
    CHECK_EQ(vg_check(NULL, NULL, NULL), VG_EINVAL);
    ONE_SHOT_CHECK(r, rc, doc, NULL);
    check_fail_open(r, rc, VG_EINVAL);
    vg_result_free(r);
    /* NULL source: the header does not say EINVAL or ECONFIG; either fails open */
    ONE_SHOT_CHECK(r, rc, NULL, "1.0");
    CHECK(rc == VG_EINVAL || rc == VG_ECONFIG);
    check_fail_open(r, rc, rc);
    vg_result_free(r);
    ONE_SHOT_CHECK(r, rc, doc, "1.0");
    CHECK_EQ(rc, VG_OK);
    CHECK_EQ(vg_result_status(r), VG_STATUS_MANDATORY);
    vg_result_free(r);
}

static void test_result_nulls(void)
{
    CHECK_EQ(vg_result_status(NULL), VG_STATUS_UP_TO_DATE);
    CHECK_EQ(vg_result_should_prompt(NULL), 0);
    CHECK(vg_result_title(NULL) == NULL);
    CHECK(vg_result_message(NULL) == NULL);
    CHECK(vg_result_release_notes(NULL) == NULL);
    CHECK(vg_result_action_label(NULL) == NULL);
    CHECK(vg_result_dismiss_label(NULL) == NULL);
    CHECK(vg_result_store_url(NULL) == NULL);
    CHECK(vg_result_error(NULL) <= 0 && vg_result_error(NULL) >= VG_EINTERNAL);
    /* error(NULL) / error_message(NULL): the header only promises "the
     * UP_TO_DATE / NULL answer"; an error code with a static text is fine. */
    CHECK(vg_result_error_message(NULL) == NULL || vg_result_error_message(NULL)[0] != '\0');
    CHECK(vg_result_min_required(NULL) == NULL);
    CHECK(vg_result_latest(NULL) == NULL);
    CHECK(vg_result_json(NULL) == NULL);
    vg_result_free(NULL);
    passed++; /* vg_result_free(NULL) returned */
}

static void test_documents(void)
{
    vg_client *c = NULL;
    vg_result *r;
    int rc;
    const char *good = write_text("good.json",
        "{\"min_required_version_linux\":\"1.0.39\",\"latest_version_linux\":\"1.0.41\","
        "\"update_url_linux\":\"https://flathub.org/apps/com.example.Launcher\"}");

    CHECK_EQ(vg_client_new(&c), VG_OK);
    CHECK_EQ(vg_client_set(c, "session_scope", "process"), VG_OK);
    CHECK_EQ(vg_client_set(c, "source", good), VG_OK);

    CLIENT_CHECK(r, rc, c, "1.0.38");
    CHECK_EQ(rc, VG_OK);
    CHECK_EQ(vg_result_error(r), VG_OK);
    CHECK_EQ(vg_result_status(r), VG_STATUS_MANDATORY);
    CHECK_EQ(vg_result_should_prompt(r), 1);
    CHECK(vg_result_title(r) && vg_result_message(r) && vg_result_action_label(r));
    CHECK(vg_result_dismiss_label(r) == NULL);
    CHECK(vg_result_store_url(r) &&
          strcmp(vg_result_store_url(r), "https://flathub.org/apps/com.example.Launcher") == 0);
    CHECK(vg_result_min_required(r) && strcmp(vg_result_min_required(r), "1.0.39") == 0);
    CHECK(vg_result_latest(r) && strcmp(vg_result_latest(r), "1.0.41") == 0);
    CHECK(vg_result_json(r) && strstr(vg_result_json(r), "\"MANDATORY\""));
    vg_result_free(r);

    CLIENT_CHECK(r, rc, c, "1.0.40");
    CHECK_EQ(rc, VG_OK);
    CHECK_EQ(vg_result_status(r), VG_STATUS_OPTIONAL);
    CHECK_EQ(vg_result_should_prompt(r), 1);
    CHECK(vg_result_dismiss_label(r) != NULL);
    vg_result_free(r);
    CLIENT_CHECK(r, rc, c, "1.0.40");
    CHECK_EQ(vg_result_should_prompt(r), 0); /* once per session */
    vg_result_free(r);

    CLIENT_CHECK(r, rc, c, "1.0.41");
    CHECK_EQ(rc, VG_OK);
    CHECK_EQ(vg_result_status(r), VG_STATUS_UP_TO_DATE);
    CHECK(vg_result_title(r) == NULL && vg_result_json(r) != NULL);
    vg_result_free(r);

    /* invalid current version */
    CLIENT_CHECK(r, rc, c, "1.0.38b");
    check_fail_open(r, rc, VG_EVERSION);
    vg_result_free(r);
    CLIENT_CHECK(r, rc, c, "1.0\xff");
    check_fail_open(r, rc, VG_EVERSION);
    vg_result_free(r);

    /* missing, directory, invalid, array, oversized: VG_ECONFIG naming the path */
    {
        const char *missing = path_in_tmp("missing.json");
        const char *invalid = write_text("invalid.json", "{\"min_required_version_linux\": ");
        const char *array = write_text("array.json", "[\"9.9\"]");
        const char *binary = write_file("binary.json", "{\"a\xff\":1}", 9);
        const char *empty = write_file("empty.json", "", 0);
        const char *dir = tmpdir;
        char *big;
        size_t n = 1024 * 1024 + 1;
        const char *over;
        const char *paths[7];
        size_t k = 0;

        big = malloc(n);
        if (!big) exit(2);
        memset(big, ' ', n);
        memcpy(big, "{\"min_required_version_linux\":\"9\"}", 34);
        over = write_file("oversized.json", big, n);
        free(big);

        paths[k++] = missing;
        paths[k++] = invalid;
        paths[k++] = array;
        paths[k++] = binary;
        paths[k++] = empty;
        paths[k++] = dir;
        paths[k++] = over;
        for (size_t i = 0; i < k; i++) {
            CHECK_EQ(vg_client_set(c, "source", paths[i]), VG_OK);
            CLIENT_CHECK(r, rc, c, "1.0");
            check_fail_open(r, rc, VG_ECONFIG);
            if (vg_result_error_message(r) == NULL ||
                strstr(vg_result_error_message(r), paths[i]) == NULL) {
                printf("FAIL error message for %s does not name it: %s\n", paths[i],
                       vg_result_error_message(r) ? vg_result_error_message(r) : "(null)");
                failed++;
            } else {
                passed++;
            }
            vg_result_free(r);
        }
    }

    /* a bad threshold counts as absent and is reported */
    {
        const char *num = write_text("number.json",
            "{\"min_required_version_linux\": 2.10, \"latest_version_linux\": \"1.0.41\"}");
        CHECK_EQ(vg_client_set(c, "source", num), VG_OK);
        CLIENT_CHECK(r, rc, c, "1.0.39");
        CHECK_EQ(rc, VG_ECONFIG);
        CHECK_EQ(vg_result_error(r), VG_ECONFIG);
        CHECK_EQ(vg_result_status(r), VG_STATUS_OPTIONAL);
        CHECK(vg_result_min_required(r) == NULL);
        CHECK(vg_result_error_message(r) &&
              strstr(vg_result_error_message(r), "min_required_version_linux"));
        vg_result_free(r);
    }

    /* file:// URLs */
    {
        char url[600];
        snprintf(url, sizeof url, "file://%s", good);
        CHECK_EQ(vg_client_set(c, "source", url), VG_OK);
        CLIENT_CHECK(r, rc, c, "1.0.38");
        CHECK_EQ(rc, VG_OK);
        CHECK_EQ(vg_result_status(r), VG_STATUS_MANDATORY);
        vg_result_free(r);
        snprintf(url, sizeof url, "file://localhost%s", good);
        CHECK_EQ(vg_client_set(c, "source", url), VG_OK);
        CLIENT_CHECK(r, rc, c, "1.0.38");
        CHECK_EQ(rc, VG_OK);
        CHECK_EQ(vg_result_status(r), VG_STATUS_MANDATORY);
        vg_result_free(r);
        CHECK_EQ(vg_client_set(c, "source", ""), VG_EINVAL);
    }

    /* results outlive their client */
    CHECK_EQ(vg_client_set(c, "source", good), VG_OK);
    CLIENT_CHECK(r, rc, c, "1.0.38");
    vg_client_free(c);
    CHECK_EQ(vg_result_status(r), VG_STATUS_MANDATORY);
    CHECK(vg_result_title(r) != NULL && utf8_ok(vg_result_title(r)));
    vg_result_free(r);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove the test's directory tree (documents and the library's markers). */
static void cleanup(void)
{
    if (nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmpdir);
}

/* Where to update: NULL in each pointer argument, and the memory contract. */
static void test_store_nulls(void)
{
    char *url = (char *)"untouched";
    vg_client *c = NULL;

    CHECK_EQ(vg_store_url(NULL, "flathub", "com.example.Launcher"), VG_EINVAL);
    CHECK_EQ(vg_store_url(&url, NULL, "com.example.Launcher"), VG_EINVAL);
    CHECK(url == NULL);
    url = (char *)"untouched";
    CHECK_EQ(vg_store_url(&url, "flathub", NULL), VG_EINVAL);
    CHECK(url == NULL);
    CHECK_EQ(vg_store_url(&url, "no-such-store", "com.example.Launcher"), VG_EINVAL);
    CHECK_EQ(vg_store_url(&url, "flathub", "com.example.Launcher"), VG_OK);
    CHECK(url != NULL && strcmp(url, "appstream:com.example.Launcher") == 0);
    vg_free(url);
    CHECK_EQ(vg_store_url(&url, "snap", "Not_A_Snap"), VG_OK);
    CHECK(url == NULL);

    CHECK_EQ(vg_client_store_url(NULL, NULL), VG_EINVAL);
    url = (char *)"untouched";
    CHECK_EQ(vg_client_store_url(&url, NULL), VG_EINVAL);
    CHECK(url == NULL);
    CHECK_EQ(vg_client_new(&c), VG_OK);
    CHECK_EQ(vg_client_set(c, "store", "snap"), VG_OK);
    CHECK_EQ(vg_client_set(c, "app_id", "example-launcher"), VG_OK);
    CHECK_EQ(vg_client_store_url(&url, c), VG_OK);
    CHECK(url != NULL && strcmp(url, "snap://example-launcher") == 0);
    vg_free(url);
    vg_client_free(c);

    CHECK_EQ(vg_open_url(NULL), VG_EINVAL);
    CHECK_EQ(vg_open_url("javascript:alert(1)"), VG_EPOLICY);
    CHECK_EQ(vg_client_open_url(NULL, "https://flathub.org/apps/x"), VG_EINVAL);
    CHECK_EQ(vg_client_new(&c), VG_OK);
    CHECK_EQ(vg_client_open_url(c, NULL), VG_EINVAL);
    CHECK(vg_client_last_error(c) != NULL);
    CHECK_EQ(vg_client_set(c, "allowed_url_hosts", "store.example.com"), VG_OK);
    CHECK_EQ(vg_client_open_url(c, "javascript:alert(1)"), VG_EPOLICY);
    CHECK_EQ(vg_client_open_url(c, "https://flathub.org/apps/x"), VG_EPOLICY);
    CHECK(strstr(vg_client_last_error(c), "flathub.org") != NULL);
    vg_client_free(c);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    char run_dir[300];

    snprintf(tmpdir, sizeof tmpdir, "%s/vg-abi-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    /* session markers go to a private runtime dir, never the real one */
    snprintf(run_dir, sizeof run_dir, "%s/run", tmpdir);
    if (mkdir(run_dir, 0700) != 0 || setenv("XDG_RUNTIME_DIR", run_dir, 1) != 0) {
        perror(run_dir);
        return 2;
    }
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    unsetenv("LANG");

    test_library();
    test_versions();
    test_decide();
    test_client_nulls();
    test_result_nulls();
    test_big_inputs();
    test_documents();
    test_store_nulls();

    cleanup();

    printf("abi: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
