/* Finding programs and running dialogs: only absolute $PATH entries are
 * searched (a relative entry would run whatever the current directory
 * holds), and a dialog runs with a clean descriptor set and default signal
 * handling (vg_system_spawn, shared with the library), waited for properly. */
#define _GNU_SOURCE
#include "cli.h"
#include "process_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int is_executable_file(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISREG(s.st_mode) && access(path, X_OK) == 0;
}

char *vgcli_find_program(const char *name) {
    if (!name || !*name) return NULL;
    if (strchr(name, '/')) return strdup(name);
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t name_length = strlen(name);
    for (const char *entry = path; *entry;) {
        const char *end = strchr(entry, ':');
        size_t length = end ? (size_t)(end - entry) : strlen(entry);
        if (length > 0 && entry[0] == '/') {
            char *candidate = malloc(length + name_length + 2);
            if (!candidate) return NULL;
            memcpy(candidate, entry, length);
            candidate[length] = '/';
            memcpy(candidate + length + 1, name, name_length + 1);
            if (is_executable_file(candidate)) return candidate;
            free(candidate);
        }
        if (!end) break;
        entry = end + 1;
    }
    return NULL;
}

static int is_utf8_locale(const char *name) {
    return name && (strcasestr(name, "UTF-8") || strcasestr(name, "utf8"));
}

/* The environment for a dialog. Our texts are UTF-8; in a locale that is
 * not (e.g. none set: "C"), GTK and Qt would convert the arguments from
 * ASCII and refuse them, so the character type becomes C.UTF-8 (the
 * language of messages is untouched unless LC_ALL forces it). NULL: use
 * environ as it is. */
static char **dialog_environment(void) {
    const char *all = getenv("LC_ALL"), *ctype = getenv("LC_CTYPE"), *lang = getenv("LANG");
    const char *effective = all && *all ? all : ctype && *ctype ? ctype : lang;
    if (is_utf8_locale(effective)) return NULL;
    const char *replaced = all && *all ? "LC_ALL=" : "LC_CTYPE=";
    size_t count = 0;
    while (environ[count]) count++;
    char **copy = calloc(count + 2, sizeof *copy);
    if (!copy) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], replaced, strlen(replaced)) != 0) copy[n++] = environ[i];
    copy[n++] = (char *)(replaced[3] == 'A' ? "LC_ALL=C.UTF-8" : "LC_CTYPE=C.UTF-8");
    copy[n] = NULL;
    return copy;
}

int vgcli_run(char *const argv[], char *out, size_t out_size) {
    int pipe_fds[2] = {-1, -1};
    if (out && pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;

    /* A parent that ignores SIGCHLD would have the child reaped behind our
     * back; restored before COMMAND inherits it. */
    struct sigaction default_child = {.sa_handler = SIG_DFL}, saved_child;
    sigemptyset(&default_child.sa_mask);
    sigaction(SIGCHLD, &default_child, &saved_child);

    pid_t pid;
    char **environment = dialog_environment();
    /* The library's one way to start a program (Sources/SystemShim/process_spawn.c):
     * stdin and stderr on /dev/null, nothing else of ours, default signals. */
    int spawned = vg_system_spawn(argv[0], argv, environment ? environment : environ, -1, out ? pipe_fds[1] : -1, 0,
                                  &pid);
    free(environment);
    if (out) close(pipe_fds[1]);

    if (out) {
        size_t filled = 0;
        out[0] = '\0';
        if (spawned == 0) {
            char discard[256];
            for (;;) {
                char *into = filled + 1 < out_size ? out + filled : discard;
                size_t room = filled + 1 < out_size ? out_size - 1 - filled : sizeof discard;
                ssize_t n = read(pipe_fds[0], into, room);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                if (into != discard) filled += (size_t)n;
            }
            out[filled] = '\0';
        }
        close(pipe_fds[0]);
    }

    int result = -1;
    if (spawned == 0) {
        int status;
        pid_t waited;
        do waited = waitpid(pid, &status, 0);
        while (waited < 0 && errno == EINTR);
        if (waited == pid && WIFEXITED(status)) result = WEXITSTATUS(status);
    }
    sigaction(SIGCHLD, &saved_child, NULL);
    return result;
}

int vgcli_start_fed(char *const argv[], int *in_fd, pid_t *pid) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
    char **environment = dialog_environment();
    int spawned = vg_system_spawn(argv[0], argv, environment ? environment : environ, pipe_fds[0], -1, 0, pid);
    free(environment);
    close(pipe_fds[0]);
    if (spawned != 0) {
        close(pipe_fds[1]);
        return -1;
    }
    *in_fd = pipe_fds[1];
    return 0;
}

void vgcli_reap(pid_t pid) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
}
