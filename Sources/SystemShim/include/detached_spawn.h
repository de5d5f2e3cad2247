#ifndef VG_DETACHED_SPAWN_H
#define VG_DETACHED_SPAWN_H

#include <sys/types.h>

/* Starts `path` with `argv` and `envp` as a process that is never the
 * caller's child (docs/design.md, "The fetch helper"): its parent is init
 * (or the nearest subreaper), so the caller has nothing to reap and gets
 * no SIGCHLD for it. The child is in a session and process group of its
 * own (its pid is the group's id), has `in_fd` as stdin, `out_fd` as
 * stdout (-1: /dev/null), /dev/null as stderr and no other descriptor,
 * default signal dispositions and an empty mask; with `low_priority`, nice
 * 19 and SCHED_IDLE. Returns 0 and sets *pid once the program is exec'd,
 * else the errno of what failed (ENOENT, EACCES, ...). Starts no thread;
 * the caller's thread waits only for the exec, not for the program. */
__attribute__((visibility("hidden"))) int vg_system_spawn_detached(const char *path, char *const argv[],
                                                                   char *const envp[], int in_fd, int out_fd,
                                                                   int low_priority, pid_t *pid);

#endif
