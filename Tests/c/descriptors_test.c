/*
 * descriptors_test.c — nothing of the library's reaches a child the host
 * starts with fork + exec while a check is fetching on another thread
 * (Tests/python/test_host_process.py checks the same after a check). The
 * child is this program again (`--list-fds`, what `ls -l /proc/self/fd`
 * shows); every descriptor this program opens itself is close-on-exec, so
 * any socket, pipe or eventfd the child lists above 2
 * that was not open when the test started is the library's.
 *
 * The fetch runs in the fetch helper (docs/design.md, "The fetch helper"):
 * mid-check the host holds one channel, the read end of the helper's
 * answer pipe (close-on-exec), and no socket. A loopback server drips its
 * answer (a header byte every 100 ms), so the check stays in flight.
 *
 * Prints one line per failed assertion, then "descriptors: N passed, M
 * failed". Bounded: the check has a 4 s deadline; the run takes ~5 s.
 */
#define _GNU_SOURCE

#include "versiongate.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
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

#include "check.h"
#include "loopback.h"

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* ------------------------------------------- a server that drips, forever */

static int listener;
static volatile int stopping;
static volatile int accepted = -1;            /* the server's end, not the library's */

static void *drip(void *unused)
{
    (void)unused;
    static const char start[] = "HTTP/1.1 200 OK\r\nX-Drip: ";
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) return NULL;                  /* the listener was shut down */
        accepted = fd;
        char request[4096];
        (void)!read(fd, request, sizeof request);
        int ok = send(fd, start, sizeof start - 1, MSG_NOSIGNAL) > 0;
        for (int i = 0; ok && !stopping && i < 100; i++) {
            sleep_ms(100);
            ok = send(fd, "a", 1, MSG_NOSIGNAL) == 1;
        }
        accepted = -1;
        close(fd);
    }
}

/* ------------------------------------------------------ the fetching thread */

static void *fetch(void *client)
{
    vg_result *result = NULL;
    (void)vg_client_check(&result, client, "1.0.38");
    vg_result_free(result);
    return NULL;
}

/* The descriptors open when the test started (a harness's, e.g. a pipe
 * its runner left open without close-on-exec): not the library's. */
#define MAX_FD 4096
static char preexisting[MAX_FD];

static void note_preexisting(void)
{
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return;
    struct dirent *entry;
    while ((entry = readdir(fds))) {
        int fd = atoi(entry->d_name);
        if (fd > 2 && fd < MAX_FD && fd != dirfd(fds)) preexisting[fd] = 1;
    }
    closedir(fds);
}

static int is_ours(int fd)
{
    return fd > 2 && (fd >= MAX_FD || !preexisting[fd]);
}

/* A socket, a pipe or an eventfd: what a fetch could hold. */
static int is_channel(const char *target)
{
    return strncmp(target, "socket:[", 8) == 0 || strncmp(target, "pipe:[", 6) == 0 ||
           strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* How many of this process's descriptors above 2 are channels, the test's
 * own (the listener, the server's end) left out. */
static int count_channels(void)
{
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(fds))) {
        int fd = atoi(entry->d_name);
        if (!is_ours(fd) || fd == listener || fd == accepted || fd == dirfd(fds)) continue;
        char path[300], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            if (is_channel(target)) count++;
        }
    }
    closedir(fds);
    return count;
}

/* The child's side: `ls -l /proc/self/fd` as "N -> TARGET" lines, done by
 * this program (run as `descriptors_test --list-fds`), so that it needs no
 * /bin/ls (Tests/python/test_old_userland.py runs it in a bare root). */
static int list_descriptors(void)
{
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return 1;
    struct dirent *entry;
    while ((entry = readdir(fds))) {
        if (entry->d_name[0] == '.' || atoi(entry->d_name) == dirfd(fds)) continue;
        char path[300], target[300];
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        printf("fd %s -> %s\n", entry->d_name, target);
    }
    closedir(fds);
    return 0;
}

/* fork + exec of this program's --list-fds into `listing`; returns how many
 * channels above descriptor 2 the child listed (-1: it did not run). */
static int channels_a_child_inherits(const char *listing)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(listing, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || dup2(out, 1) < 0) _exit(126);
        close(out);
        execl("/proc/self/exe", "descriptors_test", "--list-fds", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    FILE *file = fopen(listing, "r");
    if (!file) return -1;
    int count = 0;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = 0;
        const char *arrow = strstr(line, " -> ");
        if (!arrow) continue;
        const char *number = arrow;
        while (number > line && number[-1] != ' ') number--;
        if (is_ours(atoi(number)) && is_channel(arrow + 4)) {
            count++;
            printf("note the child inherited: %s\n", line);
        }
    }
    fclose(file);
    return count;
}

static void during_a_check(const char *what, const char *url, int at_least, const char *listing)
{
    vg_client *client = NULL;
    CHECK(vg_client_new(&client) == VG_OK);
    CHECK(vg_client_set(client, "source", url) == VG_OK);
    CHECK(vg_client_set(client, "session_scope", "process") == VG_OK);
    CHECK(vg_client_set(client, "timeout_ms", "4000") == VG_OK);
    pthread_t fetching;
    pthread_create(&fetching, NULL, fetch, client);
    sleep_ms(1000);                            /* loopback connects in microseconds */
    int held = count_channels();
    int inherited = channels_a_child_inherits(listing);
    printf("note %s: the library held %d sockets, pipes or eventfds, the child inherited %d\n", what, held, inherited);
    CHECK(held >= at_least);                   /* not vacuous: the check was in flight */
    CHECK(inherited == 0);
    pthread_join(fetching, NULL);
    vg_client_free(client);
}

/* ------------------------------------------------------------ scratch home */

static char home[] = "/tmp/vg-descriptors-test.XXXXXX";

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(path);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list-fds") == 0) return list_descriptors();
    signal(SIGPIPE, SIG_IGN);
    note_preexisting();
    if (!mkdtemp(home)) { perror("descriptors_test: mkdtemp"); return 2; }
    setenv("HOME", home, 1);
    setenv("XDG_CACHE_HOME", home, 1);
    setenv("XDG_STATE_HOME", home, 1);
    setenv("XDG_RUNTIME_DIR", home, 1);
    char listing[128], url[64];
    snprintf(listing, sizeof listing, "%s/fds.txt", home);

    int port = listen_on_loopback(&listener, "descriptors_test");
    pthread_t server;
    pthread_create(&server, NULL, drip, NULL);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/gate.json", port);
    during_a_check("mid-transfer", url, 1, listing);   /* the helper's answer pipe */

    stopping = 1;
    shutdown(listener, SHUT_RDWR);
    close(listener);
    pthread_join(server, NULL);
    nftw(home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    printf("descriptors: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
