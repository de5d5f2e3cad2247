/*
 * event_test.c — vg_client_set_event_callback and vg_client_report from C:
 * one "decided" per check on the calling thread; nothing without a
 * callback (no event, no state file); each reported outcome and an unknown
 * one; "update_confirmed" once across clients and processes, never for a
 * version that was never prompted, never twice, its file read once per
 * client, nothing under dry_run; a callback that checks again on its own
 * client; 8 threads with their own clients; VG_EFORK in a fork() child.
 *
 * Build and run (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -pthread -ISources/VersionGateC/include \
 *       Tests/c/event_test.c -Lbuild/lib -lversiongate -o event_test
 *   LD_LIBRARY_PATH=build/lib ./event_test
 *
 * Prints one line per failed assertion, then "event: N passed, M failed".
 */
#define _XOPEN_SOURCE 700

#include "versiongate.h"

#include <dirent.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char program[] = "event_test";
#include "scratch_home.h"
#include "test_clients.h"

#include "check.h"

extern char **environ;

/* What a callback heard: the events, one per line, and on which threads. */
typedef struct heard {
    pthread_mutex_t lock;
    char text[32768];
    int events, foreign_thread;
    pthread_t thread;
} heard;

#define HEARD(name) heard name = { .lock = PTHREAD_MUTEX_INITIALIZER, .thread = pthread_self() }

static void remember(const char *event, void *userdata)
{
    heard *h = userdata;
    pthread_mutex_lock(&h->lock);
    size_t used = strlen(h->text);
    snprintf(h->text + used, sizeof h->text - used, "%s\n", event);
    h->events++;
    if (!pthread_equal(h->thread, pthread_self())) h->foreign_thread++;
    pthread_mutex_unlock(&h->lock);
}

/* How many lines of `text` contain `needle`. */
static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void write_gate(void)
{
    FILE *f = fopen(gate_path, "w");
    if (!f) fatal(gate_path);
    fputs("{\"min_required_version_linux\": \"1.0.39\", \"latest_version_linux\": \"1.0.41\","
          " \"update_url_linux\": \"https://flathub.org/apps/com.example.Launcher\"}", f);
    fclose(f);
}

/* A fresh $XDG_STATE_HOME (clients made after this use it). */
static char state_home[400];
static void fresh_state(const char *name)
{
    snprintf(state_home, sizeof state_home, "%s/%s", dir, name);
    if (mkdir(state_home, 0700) != 0) fatal(state_home);
    setenv("XDG_STATE_HOME", state_home, 1);
}

/* How many files in the state's versiongate/ start with `prefix`. */
static int state_files(const char *prefix)
{
    char path[500];
    snprintf(path, sizeof path, "%s/versiongate", state_home);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_decided(void)
{
    fresh_state("decided");
    HEARD(h);
    vg_client *client = client_for(gate_path);
    check_once(client, "1.0.38");
    CHECK(state_files("confirm-") == 0);           /* no callback: nothing recorded */
    CHECK(vg_client_set_event_callback(client, remember, &h) == VG_OK);
    check_once(client, "1.0.38");
    CHECK(h.events == 1);
    CHECK(h.foreign_thread == 0);
    CHECK(strncmp(h.text, "{\"event\":\"decided\",\"time\":\"20", 29) == 0);
    char source[400];
    snprintf(source, sizeof source, "\"source\":\"%s\",\"platform\":\"linux\",\"current\":\"1.0.38\",", gate_path);
    CHECK(strstr(h.text, source) != NULL);
    CHECK(strstr(h.text, "\"status\":\"MANDATORY\",\"rule\":\"below_minimum\","
                         "\"reason\":\"1.0.38 is below min_required_version_linux 1.0.39\","
                         "\"min_required\":\"1.0.39\",\"latest\":\"1.0.41\",\"origin\":\"local_document\","
                         "\"should_prompt\":true,\"channel\":null,\"channel_version\":null,\"managed\":false,\"policy_files\":[]}\n") != NULL);
    CHECK(state_files("confirm-") == 1);           /* a prompt heard is recorded */
    check_once(client, "1.0.37");                  /* older than the prompted 1.0.38: not an update */
    check_once(client, "not a version");
    CHECK(h.events == 3);
    CHECK(count(h.text, "\"event\":\"decided\"") == 3);
    CHECK(strstr(h.text, "\"current\":null,") != NULL);
    CHECK(strstr(h.text, "\"rule\":\"fail_open\"") != NULL);
    /* Removed: nothing more. */
    CHECK(vg_client_set_event_callback(client, NULL, NULL) == VG_OK);
    check_once(client, "1.0.38");
    CHECK(h.events == 3);
    CHECK(vg_client_set_event_callback(NULL, remember, &h) == VG_EINVAL);
    vg_client_free(client);
}

static void test_report(void)
{
    fresh_state("report");
    HEARD(h);
    vg_client *client = client_for(gate_path);
    vg_client_set_event_callback(client, remember, &h);
    vg_result *result = NULL;
    vg_client_check(&result, client, "1.0.40");
    CHECK(vg_result_status(result) == VG_STATUS_OPTIONAL);
    int before = h.events;
    const char *outcomes[] = { "shown", "update", "later", "dismissed", "store_opened", "store_open_failed", "skip" };
    for (int i = 0; i < 7; i++) {
        CHECK(vg_client_report(client, result, outcomes[i]) == VG_OK);
        char expected[200];
        snprintf(expected, sizeof expected, "\"current\":\"1.0.40\",\"outcome\":\"%s\",\"status\":\"OPTIONAL\","
                 "\"latest\":\"1.0.41\"", outcomes[i]);
        CHECK(count(h.text, expected) == 1);
    }
    CHECK(h.events == before + 7);
    CHECK(count(h.text, "\"event\":\"outcome\"") == 7);
    CHECK(count(h.text, "\"url\":\"https://flathub.org/apps/com.example.Launcher\"}") == 2);   /* store_opened, store_open_failed */
    CHECK(h.foreign_thread == 0);
    /* skip skipped: the skip file is there, and a new process session would not prompt. */
    CHECK(state_files("skip-") == 1);
    CHECK(state_files("confirm-") == 1);
    /* Unknown or missing: VG_EINVAL, nothing emitted. */
    CHECK(vg_client_report(client, result, "installed") == VG_EINVAL);
    CHECK(vg_client_report(client, result, "") == VG_EINVAL);
    CHECK(vg_client_report(client, result, NULL) == VG_EINVAL);
    CHECK(vg_client_report(client, NULL, "shown") == VG_EINVAL);
    CHECK(vg_client_report(NULL, result, "shown") == VG_EINVAL);
    CHECK(h.events == before + 7);
    vg_result_free(result);
    vg_client_free(client);

    /* Without a callback: the prompt is still recorded, nothing is emitted. */
    fresh_state("report-quiet");
    vg_client *quiet = client_for(gate_path);
    vg_client_check(&result, quiet, "1.0.38");
    CHECK(state_files("confirm-") == 0);
    CHECK(vg_client_report(quiet, result, "dismissed") == VG_OK);
    CHECK(state_files("confirm-") == 1);
    vg_result_free(result);
    vg_client_free(quiet);
}

/* Child mode: one check of `version` with a callback; the exit status is
 * how many update_confirmed it heard. */
static int child_check(const char *gate, const char *version)
{
    HEARD(h);
    vg_client *client = client_for(gate);
    vg_client_set_event_callback(client, remember, &h);
    check_once(client, version);
    vg_client_free(client);
    return count(h.text, "\"event\":\"update_confirmed\"");
}

static int confirmations_in_children(int children, const char *version)
{
    pid_t pids[8];
    char self[] = "/proc/self/exe", mode[] = "child";
    char *argv[] = { self, mode, gate_path, (char *)version, NULL };
    char exe[4096];
    ssize_t n = readlink(self, exe, sizeof exe - 1);
    if (n < 0) fatal("readlink");
    exe[n] = 0;
    for (int i = 0; i < children; i++)
        if (posix_spawn(&pids[i], exe, NULL, NULL, argv, environ) != 0) fatal("posix_spawn");
    int total = 0;
    for (int i = 0; i < children; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        total += WIFEXITED(status) ? WEXITSTATUS(status) : 100;
    }
    return total;
}

static void test_update_confirmed(void)
{
    fresh_state("confirmed");
    HEARD(h);
    vg_client *prompted = client_for(gate_path);
    vg_client_set_event_callback(prompted, remember, &h);
    check_once(prompted, "1.0.38");                /* MANDATORY: prompted, recorded */
    check_once(prompted, "1.0.38");                /* again: the first prompt is the one kept */
    CHECK(count(h.text, "update_confirmed") == 0);
    CHECK(state_files("confirm-") == 1);
    /* Four processes come back newer at once: exactly one hears it. */
    CHECK(confirmations_in_children(4, "1.0.42") == 1);
    CHECK(state_files("confirm-") == 0);
    CHECK(state_files(".confirm-") == 0);          /* the claimed record is gone too */
    /* Never twice: not in another process, another client or this one. */
    CHECK(confirmations_in_children(2, "1.0.43") == 0);
    vg_client *other = client_for(gate_path);
    HEARD(o);
    vg_client_set_event_callback(other, remember, &o);
    check_once(other, "1.0.42");
    check_once(prompted, "1.0.42");
    CHECK(count(o.text, "update_confirmed") + count(h.text, "update_confirmed") == 0);
    vg_client_free(other);
    vg_client_free(prompted);

    /* In process: another client claims it, with its fields, before its decided. */
    fresh_state("confirmed-here");
    HEARD(c);
    vg_client *first = client_for(gate_path), *second = client_for(gate_path);
    vg_client_set_event_callback(first, remember, &c);
    vg_client_set_event_callback(second, remember, &c);
    check_once(first, "1.0.38");
    check_once(second, "1.0.39");                  /* newer than 1.0.38: confirmed, and OPTIONAL prompts */
    check_once(first, "1.0.41");                   /* newer than 1.0.39, which `first` never read itself */
    check_once(second, "1.0.41");
    CHECK(count(c.text, "\"event\":\"update_confirmed\"") == 2);
    CHECK(strstr(c.text, "{\"event\":\"update_confirmed\",") != NULL);
    CHECK(strstr(c.text, "\"current\":\"1.0.39\",\"from\":\"1.0.38\",\"to\":\"1.0.39\",\"prompted_at\":\"20") != NULL);
    CHECK(strstr(c.text, "\"status_then\":\"MANDATORY\"}\n{\"event\":\"decided\"") != NULL);
    CHECK(strstr(c.text, "\"from\":\"1.0.39\",\"to\":\"1.0.41\"") != NULL);
    CHECK(strstr(c.text, "\"status_then\":\"OPTIONAL\"}") != NULL);
    vg_client_free(first);
    vg_client_free(second);

    /* Read at most once per client: a record written by another process
     * after this client looked is not its to confirm; a new client's. */
    fresh_state("read-once");
    HEARD(e);
    vg_client *early = client_for(gate_path);
    vg_client_set_event_callback(early, remember, &e);
    check_once(early, "1.0.41");
    CHECK(confirmations_in_children(1, "1.0.38") == 0);   /* prompted, recorded */
    CHECK(state_files("confirm-") == 1);
    check_once(early, "1.0.42");
    CHECK(count(e.text, "update_confirmed") == 0);
    CHECK(state_files("confirm-") == 1);
    vg_client *late = client_for(gate_path);
    vg_client_set_event_callback(late, remember, &e);
    check_once(late, "1.0.42");
    CHECK(count(e.text, "update_confirmed") == 1);
    vg_client_free(early);
    vg_client_free(late);

    /* Never prompted: an up-to-date version, then a newer one. */
    fresh_state("never-prompted");
    CHECK(confirmations_in_children(1, "1.0.41") == 0);
    CHECK(confirmations_in_children(1, "1.0.42") == 0);
    /* dry_run records nothing. */
    vg_client *dry = client_for(gate_path);
    vg_client_set(dry, "dry_run", "1");
    vg_client_set_event_callback(dry, remember, &c);
    check_once(dry, "1.0.38");
    CHECK(state_files("confirm-") == 0);
    CHECK(confirmations_in_children(1, "1.0.42") == 0);
    /* ...nor claims one: the record is still there for a real check. */
    vg_client *real = client_for(gate_path);
    vg_client_set_event_callback(real, remember, &c);
    check_once(real, "1.0.38");
    vg_client_free(real);
    int before = count(c.text, "update_confirmed");
    check_once(dry, "1.0.42");
    CHECK(count(c.text, "update_confirmed") == before);
    CHECK(state_files("confirm-") == 1);
    vg_client_free(dry);
    CHECK(confirmations_in_children(1, "1.0.42") == 1);
}

/* The callback checks once more on its own client (depth 1 only). */
static __thread int depth;
static vg_client *reentered;

static void check_again(const char *event, void *userdata)
{
    remember(event, userdata);
    if (depth++ == 0) check_once(reentered, "1.0.41");
    depth--;
}

static void test_reentry(void)
{
    HEARD(h);
    reentered = client_for(gate_path);
    vg_client_set_event_callback(reentered, check_again, &h);
    check_once(reentered, "1.0.41");
    CHECK(h.events == 2);
    vg_result *result = NULL;
    vg_client_check(&result, reentered, "1.0.41");
    CHECK(vg_client_report(reentered, result, "shown") == VG_OK);   /* outcome, then the inner decided */
    CHECK(h.events == 6);
    vg_result_free(result);
    vg_client_free(reentered);
}

static void *own_client(void *userdata)
{
    heard *h = userdata;
    h->thread = pthread_self();
    vg_client *client = client_for(gate_path);
    vg_client_set_event_callback(client, remember, h);
    /* No version newer than a prompted one: decided only. */
    for (int i = 0; i < 50; i++) check_once(client, i % 2 ? "1.0.38" : "not a version");
    vg_client_free(client);
    return NULL;
}

static void test_threads(void)
{
    static heard h[8];
    pthread_t threads[8];
    for (int i = 0; i < 8; i++) {
        pthread_mutex_init(&h[i].lock, NULL);
        pthread_create(&threads[i], NULL, own_client, &h[i]);
    }
    for (int i = 0; i < 8; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < 8; i++) {
        CHECK(h[i].events == 50);
        CHECK(count(h[i].text, "\"event\":\"decided\"") == 50);
        CHECK(count(h[i].text, "\"status\":\"MANDATORY\"") == 25);
        CHECK(h[i].foreign_thread == 0);
    }
}

static void test_fork_child(void)
{
    vg_client *client = client_for(gate_path);
    vg_result *result = NULL;
    vg_client_check(&result, client, "1.0.40");
    pid_t pid = fork();
    if (pid == 0) {
        int ok = vg_client_set_event_callback(client, remember, NULL) == VG_EFORK
            && vg_client_report(client, result, "shown") == VG_EFORK;
        _exit(ok ? 0 : 1);
    }
    int status = 1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    vg_result_free(result);
    vg_client_free(client);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "child") == 0) return child_check(argv[2], argv[3]);
    make_scratch_home();
    write_gate();
    test_decided();
    test_report();
    test_update_confirmed();
    test_reentry();
    test_threads();
    test_fork_child();
    printf("event: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
