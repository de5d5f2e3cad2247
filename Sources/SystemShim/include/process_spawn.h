#ifndef VG_PROCESS_SPAWN_H
#define VG_PROCESS_SPAWN_H

#include <sys/types.h>

enum {
    /* A session and process group of its own (its pid is the group's id):
     * the terminal's Ctrl-C or hang-up meant for the caller does not reach it. */
    VG_SPAWN_NEW_SESSION = 1,
    /* Never the caller's child: its parent is init (or the nearest
     * subreaper), so the caller has nothing to reap and gets no SIGCHLD. */
    VG_SPAWN_DETACHED = 2,
    /* nice 19 and SCHED_IDLE. */
    VG_SPAWN_LOW_PRIORITY = 4,
    /* The caller's descriptors 0, 1 and 2 also reach the program, as its 3,
     * 4 and 5 (/dev/null for one the caller has closed): the restart into
     * an updated app hands them on to it. */
    VG_SPAWN_PASS_STDIO = 8,
    /* The caller's descriptors 0, 1 and 2 stay the program's 0, 1 and 2
     * (in_fd and out_fd are not used): the restart into an updated AppImage. */
    VG_SPAWN_KEEP_STDIO = 16
};

/* The one way every program is started, by the library (the fetch helper,
 * xdg-open) and by the command (dialogs), which compiles this file too
 * (docs/design.md, "Starting processes"): `path` with `argv` and `envp`,
 * `in_fd` as stdin and `out_fd` as stdout (-1: /dev/null), /dev/null as
 * stderr and no other descriptor, default signal dispositions and an empty
 * mask. Returns 0 and sets *pid once the program is exec'd, else the errno
 * of what failed (ENOENT, EACCES, ...). Starts no thread; the calling
 * thread waits only for the exec. A child that is not VG_SPAWN_DETACHED is
 * the caller's to wait for. A VG_SPAWN_DETACHED start waits for no exec:
 * it returns once the program is forked, and an exec that fails is the
 * program's exit status 127. */
__attribute__((visibility("hidden"))) int vg_system_spawn(const char *path, char *const argv[], char *const envp[],
                                                          int in_fd, int out_fd, int flags, pid_t *pid);

/* The same, and `kept_fd` (-1: none) reaches the program as its next
 * descriptor: 3, or 6 with VG_SPAWN_PASS_STDIO. The host's lock on a
 * channel question is handed on so: the helper holds it until it exits
 * (docs/design.md, "Asking the channel"). */
__attribute__((visibility("hidden"))) int vg_system_spawn_keeping(const char *path, char *const argv[],
                                                                  char *const envp[], int in_fd, int out_fd,
                                                                  int kept_fd, int flags, pid_t *pid);

#endif
