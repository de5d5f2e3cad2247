/*
 * host_process.c — a C host making one check, and what the check left in
 * its process (docs/design.md, "The fetch helper"); driven by
 * Tests/python/test_host_process.py against a loopback https server.
 *
 *   host_process VERSION KEY=VALUE...   one check with these options;
 *                                       prints one JSON object
 *   host_process --list-fds             what an exec'd child holds: its
 *                                       descriptors above 2, one per line
 *
 * The object: status, origin, the check's elapsed_ms; the network
 * libraries /proc/self/maps lists afterwards; threads before and after
 * (Threads: in /proc/self/status, also 300 ms later: a refresh thread
 * would show then); the descriptors that are new since before the check;
 * what a child started after the check inherited; the SIGCHLDs this host
 * received and whether any child of it is left to reap. Every descriptor
 * this program opens itself is close-on-exec.
 */
#define _GNU_SOURCE

#include "versiongate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_FD 1024

static volatile sig_atomic_t sigchld_count;

static void on_sigchld(int signal)
{
    (void)signal;
    sigchld_count++;
}

/* Marks the open descriptors above 2 in `open_fds` (the listing's own excepted). */
static void open_descriptors(char open_fds[MAX_FD])
{
    memset(open_fds, 0, MAX_FD);
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return;
    struct dirent *entry;
    while ((entry = readdir(fds))) {
        int fd = atoi(entry->d_name);
        if (fd > 2 && fd < MAX_FD && fd != dirfd(fds)) open_fds[fd] = 1;
    }
    closedir(fds);
}

static int threads(void)
{
    FILE *status = fopen("/proc/self/status", "re");
    char line[256];
    int count = -1;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "Threads:", 8) == 0) count = atoi(line + 8);
    if (status) fclose(status);
    return count;
}

/* The network libraries mapped into this process, as a JSON array. */
static void print_network_maps(void)
{
    static const char *const names[] = {"libcurl", "libssl", "libnghttp2", "libgnutls"};
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[4096];
    int found[4] = {0};
    while (maps && fgets(line, sizeof line, maps))
        for (int i = 0; i < 4; i++)
            if (strstr(line, names[i])) found[i] = 1;
    if (maps) fclose(maps);
    printf("\"network_maps\": [");
    const char *separator = "";
    for (int i = 0; i < 4; i++)
        if (found[i]) {
            printf("%s\"%s\"", separator, names[i]);
            separator = ", ";
        }
    printf("]");
}

/* What a child exec'd now inherits: its --list-fds output, as a JSON array of lines. */
static void print_child_descriptors(void)
{
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    char *argv[] = {"host_process", "--list-fds", NULL};
    pid_t pid;
    int started = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    char text[4096] = "";
    size_t length = 0;
    ssize_t n;
    while ((n = read(out[0], text + length, sizeof text - 1 - length)) > 0) length += (size_t)n;
    text[length] = 0;
    close(out[0]);
    if (started) waitpid(pid, NULL, 0);
    printf("\"child_fds\": [");
    const char *separator = "";
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        printf("%s\"%s\"", separator, line);
        separator = ", ";
    }
    printf("]");
}

static int list_fds(void)
{
    DIR *fds = opendir("/proc/self/fd");
    struct dirent *entry;
    char path[64], target[512];
    while (fds && (entry = readdir(fds))) {
        int fd = atoi(entry->d_name);
        if (fd <= 2 || fd == dirfd(fds)) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        printf("%d %s\n", fd, target);
    }
    if (fds) closedir(fds);
    return 0;
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list-fds") == 0) return list_fds();
    if (argc < 2) {
        fprintf(stderr, "usage: host_process VERSION KEY=VALUE... | --list-fds\n");
        return 2;
    }
    struct sigaction counting = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART};
    sigaction(SIGCHLD, &counting, NULL);

    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK) return 2;
    for (int i = 2; i < argc; i++) {
        char *equals = strchr(argv[i], '=');
        if (!equals) return 2;
        *equals = 0;
        if (vg_client_set(client, argv[i], equals + 1) != VG_OK) {
            fprintf(stderr, "host_process: %s: %s\n", argv[i], vg_client_last_error(client));
            return 2;
        }
    }
    char before[MAX_FD], after[MAX_FD];
    open_descriptors(before);
    int threads_before = threads();
    long start = now_ms();
    vg_result *result = NULL;
    vg_client_check(&result, client, argv[1]);
    long elapsed = now_ms() - start;
    int threads_after = threads();
    struct timespec later = {0, 300 * 1000000L};
    nanosleep(&later, NULL);
    int threads_later = threads();
    open_descriptors(after);
    int reapable = waitpid(-1, NULL, WNOHANG | __WALL);
    int reap_errno = errno;

    const char *origin = vg_result_get(result, "origin");
    printf("{\"status\": %d, \"origin\": \"%s\", \"error\": %d, \"elapsed_ms\": %ld, ", vg_result_status(result),
           origin ? origin : "", vg_result_error(result), elapsed);
    printf("\"threads\": [%d, %d, %d], ", threads_before, threads_after, threads_later);
    printf("\"new_fds\": [");
    const char *separator = "";
    for (int fd = 3; fd < MAX_FD; fd++)
        if (after[fd] && !before[fd]) {
            printf("%s%d", separator, fd);
            separator = ", ";
        }
    printf("], ");
    print_network_maps();
    printf(", \"sigchld\": %d, \"child_to_reap\": %s, ", (int)sigchld_count,
           reapable == -1 && reap_errno == ECHILD ? "false" : "true");
    print_child_descriptors();
    printf("}\n");
    vg_result_free(result);
    vg_client_free(client);
    return 0;
}
