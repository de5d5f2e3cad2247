/*
 * fork_test.c — the fork contract of versiongate.h from C: while one
 * thread's check waits on a loopback server that accepts and never
 * answers, the main thread fork()s. The child's vg_client_check on the
 * same client returns VG_EFORK at once (no crash, no hang on the locks the
 * fetching thread held); the parent's check still ends by its deadline
 * plus 10 % (docs/design.md, "Deadlines and limits"). The C twin of Tests/python/test_fork.py.
 *
 * Build and run (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -pthread -ISources/VersionGateC/include \
 *       Tests/c/fork_test.c -Lbuild/lib -lversiongate -o fork_test
 *   LD_LIBRARY_PATH=build/lib ./fork_test
 *
 * Prints one line per failed assertion, then "fork: N passed, M failed";
 * exits 1 on any failure. Bounded: the child has 5 s, the whole run ~10 s.
 */
#define _XOPEN_SOURCE 700

#include "versiongate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 1500

#include "check.h"
#include "loopback.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* ------------------------------------------- a server that never answers */

static int listener;
static int accepted_fds[16];
static int accepted_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *accept_and_stay_silent(void *unused)
{
    (void)unused;
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) return NULL;                  /* the listener was shut down */
        pthread_mutex_lock(&lock);
        if (accepted_count < 16) accepted_fds[accepted_count++] = fd;
        else close(fd);
        pthread_mutex_unlock(&lock);
    }
}

/* ------------------------------------------------------ the fetching thread */

static vg_client *client;
static int fetch_code = 1;
static double fetch_seconds;

static void *fetch(void *unused)
{
    (void)unused;
    vg_result *result = NULL;
    double start = now_s();
    fetch_code = vg_client_check(&result, client, "1.0.38");
    fetch_seconds = now_s() - start;
    vg_result_free(result);
    return NULL;
}

/* ------------------------------------------------------------ scratch home */

static char home[] = "/tmp/vg-fork-test.XXXXXX";

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(path);
}

static void private_home(void)
{
    if (!mkdtemp(home)) { perror("fork_test: mkdtemp"); exit(2); }
    setenv("HOME", home, 1);
    setenv("XDG_CACHE_HOME", home, 1);
    setenv("XDG_STATE_HOME", home, 1);
    setenv("XDG_RUNTIME_DIR", home, 1);
}

/* In the child: exit status 0 = VG_EFORK, UP_TO_DATE, at once; else which
 * part failed. Nothing buffered is written (the parent's stdio is shared). */
static void child(void)
{
    alarm(5);                                  /* a hang is killed and seen as a signal */
    vg_result *result = NULL;
    double start = now_s();
    int code = vg_client_check(&result, client, "1.0.38");
    double seconds = now_s() - start;
    int status = result ? (int)vg_result_status(result) : -1;
    vg_result_free(result);
    if (code != VG_EFORK) _exit(10);
    if (status != VG_STATUS_UP_TO_DATE) _exit(11);
    if (seconds > 0.5) _exit(12);
    /* Refused before it runs anything (xdg-open would be the child's). */
    if (vg_client_open_url(client, "https://flathub.org/apps/org.example.App") != VG_EFORK) _exit(13);
    _exit(0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    private_home();
    int port = listen_on_loopback(&listener, "fork_test");
    pthread_t server;
    pthread_create(&server, NULL, accept_and_stay_silent, NULL);

    char url[64], timeout[16];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/gate.json", port);
    snprintf(timeout, sizeof timeout, "%d", TIMEOUT_MS);
    CHECK(vg_client_new(&client) == VG_OK);
    CHECK(vg_client_set(client, "source", url) == VG_OK);
    CHECK(vg_client_set(client, "session_scope", "process") == VG_OK);
    CHECK(vg_client_set(client, "timeout_ms", timeout) == VG_OK);

    pthread_t fetching;
    pthread_create(&fetching, NULL, fetch, NULL);
    /* Fork only once the fetch is in flight: its connection was accepted. */
    double until = now_s() + 5;
    int in_flight = 0;
    while (!in_flight && now_s() < until) {
        pthread_mutex_lock(&lock);
        in_flight = accepted_count > 0;
        pthread_mutex_unlock(&lock);
        if (!in_flight) sleep_ms(2);
    }
    CHECK(in_flight);

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) child();
    CHECK(pid > 0);
    int status = 0;
    pid_t waited = 0;
    until = now_s() + 10;
    while (pid > 0 && (waited = waitpid(pid, &status, WNOHANG)) == 0 && now_s() < until) sleep_ms(5);
    if (pid > 0 && waited == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(waited == pid);
    CHECK(WIFEXITED(status));                  /* not killed: no crash, no hang */
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        printf("FAIL fork_test.c: the child exited %d (10: not VG_EFORK, 11: not UP_TO_DATE, 12: slow, 13: open_url not VG_EFORK)\n",
               WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    pthread_join(fetching, NULL);
    CHECK(fetch_code == VG_ETIMEOUT);
    /* 10 % and a quarter second of slack for a loaded machine: a deadline
     * the fork broke (never ending, or restarted) lands far beyond it. */
    CHECK(fetch_seconds <= (TIMEOUT_MS * 1.1 + 250) / 1000);
    printf("note the parent's check took %.3f s (deadline %d ms)\n", fetch_seconds, TIMEOUT_MS);

    vg_client_free(client);
    shutdown(listener, SHUT_RDWR);
    close(listener);
    pthread_join(server, NULL);
    for (int i = 0; i < accepted_count; i++) close(accepted_fds[i]);
    nftw(home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

    printf("fork: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
