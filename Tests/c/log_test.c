/*
 * log_test.c — vg_client_set_log_callback from C: the level filter, a
 * missing document named in a line, nothing at all without a callback
 * (stdout and stderr stay empty), and 8 threads at once whose callback
 * itself checks on another client (no library lock is held while it runs,
 * or this deadlocks; run.sh bounds the run).
 *
 * Build and run (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -pthread -ISources/VersionGateC/include \
 *       Tests/c/log_test.c -Lbuild/lib -lversiongate -o log_test
 *   LD_LIBRARY_PATH=build/lib ./log_test
 *
 * Prints one line per failed assertion, then "log: N passed, M failed".
 */
#define _XOPEN_SOURCE 700

#include "versiongate.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char program[] = "log_test";
#include "scratch_home.h"
#include "test_clients.h"

#include "check.h"

/* What a callback heard: the lines, each prefixed with its level digit. */
typedef struct heard {
    pthread_mutex_t lock;
    char text[16384];
    int lines, max_level;
} heard;

static void remember(int level, const char *message, void *userdata)
{
    heard *h = userdata;
    pthread_mutex_lock(&h->lock);
    size_t used = strlen(h->text);
    snprintf(h->text + used, sizeof h->text - used, "%d %s\n", level, message);
    h->lines++;
    if (level > h->max_level) h->max_level = level;
    pthread_mutex_unlock(&h->lock);
}

static vg_client *client_at_level(const char *source, const char *level)
{
    vg_client *client = client_for(source);
    if (level) vg_client_set(client, "log_level", level);
    return client;
}

static void write_gate(void)
{
    FILE *f = fopen(gate_path, "w");
    if (!f) fatal(gate_path);
    fputs("{\"min_required_version_linux\": \"1.0.39\", \"latest_version_linux\": \"1.0.41\"}", f);
    fclose(f);
}

static void test_levels_and_missing_document(void)
{
    char missing[400];
    snprintf(missing, sizeof missing, "%s/no-such-gate.json", dir);
    const char *levels[] = { "error", "warning", "info", "debug" };
    for (int i = 0; i < 4; i++) {
        heard h = { .lock = PTHREAD_MUTEX_INITIALIZER };
        vg_client *client = client_at_level(missing, levels[i]);
        CHECK(vg_client_set_log_callback(client, remember, &h) == VG_OK);
        check_once(client, "1.0.38");
        /* A missing document fails open: reported at error or warning, naming the path. */
        CHECK(strstr(h.text, missing) != NULL);
        CHECK(h.max_level <= i + 1);
        /* Turned off: nothing more. */
        int before = h.lines;
        CHECK(vg_client_set_log_callback(client, NULL, NULL) == VG_OK);
        check_once(client, "1.0.38");
        CHECK(h.lines == before);
        vg_client_free(client);
    }

    /* A good document: nothing at the default level, the decision at debug. */
    write_gate();
    heard quiet = { .lock = PTHREAD_MUTEX_INITIALIZER }, chatty = { .lock = PTHREAD_MUTEX_INITIALIZER };
    vg_client *plain = client_at_level(gate_path, NULL), *debug = client_at_level(gate_path, "debug");
    vg_client_set_log_callback(plain, remember, &quiet);
    vg_client_set_log_callback(debug, remember, &chatty);
    check_once(plain, "1.0.38");
    check_once(debug, "1.0.38");
    CHECK(quiet.lines == 0);
    CHECK(strstr(chatty.text, "4 MANDATORY (below_minimum: 1.0.38 is below min_required_version_linux 1.0.39)") != NULL);
    vg_client_free(plain);
    vg_client_free(debug);

    CHECK(vg_client_set_log_callback(NULL, remember, NULL) == VG_EINVAL);
    vg_client *client = client_at_level(gate_path, NULL);
    CHECK(vg_client_set(client, "log_level", "loud") == VG_EINVAL);
    vg_client_free(client);
}

/* No callback: the library writes nothing to the process's stdout or stderr. */
static void test_silent_without_callback(void)
{
    fflush(stdout);
    char capture[400];
    snprintf(capture, sizeof capture, "%s/output.txt", dir);
    FILE *sink = fopen(capture, "w");
    if (!sink) fatal(capture);
    int out = dup(1), err = dup(2);
    dup2(fileno(sink), 1);
    dup2(fileno(sink), 2);
    vg_client *client = client_at_level("/nonexistent/gate.json", "debug");
    check_once(client, "1.0.38");
    check_once(client, "not a version");
    vg_client_set(client, "source", "https://127.0.0.1:1/gate.json");
    vg_client_set(client, "timeout_ms", "200");
    check_once(client, "1.0.38");
    vg_client_free(client);
    fflush(stdout);
    dup2(out, 1);
    dup2(err, 2);
    close(out), close(err);
    fseek(sink, 0, SEEK_END);
    CHECK(ftell(sink) == 0);
    fclose(sink);
}

/* The callback checks on another client: with a library lock held while
 * it runs, this deadlocks or recurses into a held lock. */
static vg_client *inner;

static void check_from_callback(int level, const char *message, void *userdata)
{
    remember(level, message, userdata);
    check_once(inner, "1.0.40");
}

static vg_client *outer;

static void *checker(void *unused)
{
    (void)unused;
    for (int i = 0; i < 50; i++) check_once(outer, "1.0.38");
    return NULL;
}

static void test_many_threads_and_reentry(void)
{
    heard h = { .lock = PTHREAD_MUTEX_INITIALIZER }, inner_heard = { .lock = PTHREAD_MUTEX_INITIALIZER };
    outer = client_at_level(gate_path, "debug");
    inner = client_at_level(gate_path, "debug");
    vg_client_set_log_callback(outer, check_from_callback, &h);
    vg_client_set_log_callback(inner, remember, &inner_heard);
    pthread_t threads[8];
    for (int i = 0; i < 8; i++) pthread_create(&threads[i], NULL, checker, NULL);
    for (int i = 0; i < 8; i++) pthread_join(threads[i], NULL);
    CHECK(h.lines == 8 * 50);          /* one debug line (the decision) per check */
    CHECK(inner_heard.lines == 8 * 50);
    vg_client_free(outer);
    vg_client_free(inner);
}

int main(void)
{
    make_scratch_home();
    test_levels_and_missing_document();
    test_silent_without_callback();
    test_many_threads_and_reentry();
    printf("log: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
