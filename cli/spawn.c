/* Finding programs and running dialogs: only absolute $PATH entries are
 * searched (a relative entry would run whatever the current directory
 * holds), and a dialog runs with a clean descriptor set and default signal
 * handling, waited for properly. */
#define _GNU_SOURCE
#include "cli.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef int add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/* posix_spawn_file_actions_addclosefrom_np where glibc has it (2.34),
 * found at run time because the command is built for glibc 2.31; else a
 * close action for each inheritable descriptor in /proc/self/fd. */
static void close_descriptors_from(posix_spawn_file_actions_t *actions, int lowest) {
    void *symbol = dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addclosefrom_np");
    if (symbol) {
        add_close_from *close_from;
        memcpy(&close_from, &symbol, sizeof symbol);
        close_from(actions, lowest);
        return;
    }
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return;
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        char *end;
        long fd = strtol(entry->d_name, &end, 10);
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || *end || fd < lowest || fd > 0x7fffffff ||
            fd == dirfd(directory))
            continue;
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) posix_spawn_file_actions_addclose(actions, (int)fd);
    }
    closedir(directory);
}

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

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    else
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    /* Nothing of ours (or of the process that started us) leaks into it. */
    close_descriptors_from(&actions, 3);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    /* A parent that ignores SIGCHLD would have the child reaped behind our
     * back; restored before COMMAND inherits it. */
    struct sigaction default_child = {.sa_handler = SIG_DFL}, saved_child;
    sigemptyset(&default_child.sa_mask);
    sigaction(SIGCHLD, &default_child, &saved_child);

    pid_t pid;
    char **environment = dialog_environment();
    int spawned = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environment ? environment : environ);
    free(environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
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
