/* Starting a program; see process_spawn.h (docs/design.md, "Starting
 * processes").
 *
 * The calling thread clones the child with CLONE_VM | CLONE_VFORK, as
 * glibc's posix_spawn does: no page tables are copied, so the cost does not
 * grow with the host, and the thread resumes once the child has exec'd.
 * A detached start never waits for an exec (a cold disk at login, a
 * network home can make one take seconds): it clones an intermediate with
 * CLONE_VM | CLONE_VFORK and no exit signal, which forks the program (a
 * copy of the address space, so nothing of the caller's is shared once
 * the caller resumes) and exits; the caller resumes then, reaps it at once
 * with __WCLONE and returns while the program is still on its way to its
 * exec. A failed exec is the program's exit status 127, seen by the caller
 * as a program that ends without a word. The program is a child of init
 * (or of the nearest subreaper): the host gets no SIGCHLD (an exit signal
 * of 0 sends none), has no zombie, and a host's waitpid(-1) loop never
 * sees the intermediate (only __WCLONE or __WALL waits for a child with no
 * exit signal).
 *
 * The children share the caller's memory while its other threads run: they
 * touch only their own stacks and the `launch` record, and make raw system
 * calls only, never a libc function a sanitizer's runtime intercepts (its
 * interceptors would run on the caller's thread state). Every signal is blocked around the clones,
 * so no handler of the caller runs on a child's stack; the program's child
 * resets each disposition to the default before it unblocks them. */
#define _GNU_SOURCE
#include "process_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { STACK_BYTES = 64 << 10 };

/* The children's code: no sanitizer instrumentation at all. no_sanitize
 * alone still calls ThreadSanitizer's function entry hook, which the child
 * (sharing the caller's thread pointer) would run on the caller's thread
 * state: each spawn left about 18 kB of it behind, and pushed frames that
 * were never popped. */
#if defined(__has_attribute) && __has_attribute(disable_sanitizer_instrumentation)
#define CHILD_CODE __attribute__((disable_sanitizer_instrumentation))
#else
#define CHILD_CODE __attribute__((no_sanitize("address", "thread")))
#endif

/* glibc's clone under the name ThreadSanitizer does not intercept: its
 * clone interceptor treats every clone as a fork and breaks on CLONE_VM. */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *argument, ...);

struct launch {
    const char *path;
    char *const *argv, *const *envp;
    int in_fd, out_fd, null_fd, kept_fd, flags;
    int report_fd;   /* detached_by_fork's pipe; unused otherwise */
    char *program_stack;
    pid_t pid;
    int error;
};

/* The kernel's struct sigaction (x86_64 and arm64 alike), with its 64-bit mask. */
struct kernel_sigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    unsigned long mask;
};

/* Every descriptor from `first` up: close_range (Linux 5.9) in one call;
 * before it, each one below the limit (capped: a limit of millions would
 * take seconds; the caller's descriptors are O_CLOEXEC as ours are). */
CHILD_CODE
static void close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0) return;
#endif
    struct rlimit limit;
    long last = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
        ? (long)limit.rlim_cur : 65536;
    if (last > 65536) last = 65536;
    for (long fd = first; fd < last; fd++) syscall(SYS_close, fd);
}

CHILD_CODE
static int program_main(void *argument) {
    struct launch *launch = argument;
    struct kernel_sigaction standard = {0};   /* SIG_DFL */
    for (long number = 1; number <= 64; number++) syscall(SYS_rt_sigaction, number, &standard, NULL, 8);
    long failed = 0;
    if ((launch->flags & VG_SPAWN_NEW_SESSION) && syscall(SYS_setsid) < 0) failed = errno;
    if (!failed && (launch->flags & VG_SPAWN_LOW_PRIORITY)) {
        syscall(SYS_setpriority, PRIO_PROCESS, 0, 19);
        struct sched_param idle = {0};
        syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &idle);   /* best effort: nice 19 already yields */
    }
    /* The caller's 0-2 first, before they are replaced; the caller made
     * every descriptor of ours above them, so no dup3 meets its own target. */
    int first_free = 3;
    if (!failed && (launch->flags & VG_SPAWN_PASS_STDIO)) {
        for (long fd = 0; fd < 3; fd++)
            if (syscall(SYS_dup3, fd, fd + 3, 0) < 0 && syscall(SYS_dup3, launch->null_fd, fd + 3, 0) < 0) failed = errno;
        first_free = 6;
    }
    /* The descriptor handed on (a lock the program keeps holding) comes next. */
    if (!failed && launch->kept_fd >= 0) {
        if (syscall(SYS_dup3, launch->kept_fd, first_free, 0) < 0) failed = errno;
        else first_free++;
    }
    if (!failed && !(launch->flags & VG_SPAWN_KEEP_STDIO)
        && (syscall(SYS_dup3, launch->in_fd >= 0 ? launch->in_fd : launch->null_fd, 0, 0) < 0
                    || syscall(SYS_dup3, launch->out_fd >= 0 ? launch->out_fd : launch->null_fd, 1, 0) < 0
                    || syscall(SYS_dup3, launch->null_fd, 2, 0) < 0))
        failed = errno;
    if (!failed) {
        close_from(first_free);
        unsigned long none = 0;
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8);
        syscall(SYS_execve, launch->path, launch->argv, launch->envp);
        failed = errno;
    }
    launch->error = failed ? (int)failed : EINVAL;
    syscall(SYS_exit, 127);
    return 127;
}

CHILD_CODE
static int intermediate_main(void *argument) {
    struct launch *launch = argument;
    /* A fork, not a vfork: the caller waits for this intermediate only. */
    pid_t pid = __clone(program_main, launch->program_stack + STACK_BYTES, SIGCHLD, launch);
    if (pid < 0) launch->error = errno;
    else launch->pid = pid;
    syscall(SYS_exit, 0);
    return 0;
}

/* detached_by_fork's intermediate, a copy of the caller: it starts the
 * program and writes {pid, error} to the pipe. */
CHILD_CODE
static int forked_intermediate_main(void *argument) {
    struct launch *launch = argument;
    pid_t pid = __clone(program_main, launch->program_stack + STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD, launch);
    int report[2] = {pid > 0 ? pid : 0, pid > 0 ? launch->error : errno};
    syscall(SYS_write, launch->report_fd, report, sizeof report);
    syscall(SYS_exit, 0);
    return 0;
}

/* A detached start where a clone with no exit signal is refused (qemu-user
 * emulates only fork-like clones and threads, and calls that EINVAL): the
 * intermediate is a forked child that reports the program's pid through a
 * pipe, reaped here; the host may see its SIGCHLD. Where the fork stands in
 * for CLONE_VFORK too (qemu-user), a failed exec is not reported: the
 * program exits 127. */
static int detached_by_fork(struct launch *launch, char *stack_top) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return errno;
    launch->report_fd = pipe_fds[1];
    pid_t intermediate = __clone(forked_intermediate_main, stack_top, SIGCHLD, launch);
    int error = intermediate < 0 ? errno : 0;
    close(pipe_fds[1]);
    if (!error) {
        int report[2];
        ssize_t n;
        do n = read(pipe_fds[0], report, sizeof report);
        while (n < 0 && errno == EINTR);
        while (waitpid(intermediate, NULL, 0) < 0 && errno == EINTR) {}
        if (n != (ssize_t)sizeof report) error = ECHILD;
        else if (report[1]) error = report[1];
        else launch->pid = report[0];
    }
    close(pipe_fds[0]);
    return error;
}

/* `fd` moved above the descriptors the child sets up (0-6), close-on-exec;
 * -1 for -1 or on failure. */
static int above_stdio(int fd) {
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 7);
}

int vg_system_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int flags,
                    pid_t *pid) {
    return vg_system_spawn_keeping(path, argv, envp, in_fd, out_fd, -1, flags, pid);
}

int vg_system_spawn_keeping(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
                            int kept_fd, int flags, pid_t *pid) {
    struct launch launch = {.path = path, .argv = argv, .envp = envp, .flags = flags, .report_fd = -1};
    launch.in_fd = above_stdio(in_fd);
    launch.out_fd = above_stdio(out_fd);
    launch.kept_fd = above_stdio(kept_fd);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    launch.null_fd = above_stdio(null);
    if (null >= 0) close(null);
    int error = 0;
    char *stacks = MAP_FAILED;
    if ((in_fd >= 0 && launch.in_fd < 0) || (out_fd >= 0 && launch.out_fd < 0) || (kept_fd >= 0 && launch.kept_fd < 0)
        || launch.null_fd < 0) {
        error = errno ? errno : EBADF;
        goto out;
    }
    stacks = mmap(NULL, 2 * STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stacks == MAP_FAILED) {
        error = errno;
        goto out;
    }
    launch.program_stack = stacks + STACK_BYTES;

    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);   /* this thread's mask (pthread_sigmask is libpthread's before glibc 2.32) */
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    if (flags & VG_SPAWN_DETACHED) {
        /* Exit signal 0: the caller is told nothing when the intermediate ends. */
        pid_t intermediate = __clone(intermediate_main, stacks + STACK_BYTES, CLONE_VM | CLONE_VFORK, &launch);
        if (intermediate < 0 && errno == EINVAL) {
            error = detached_by_fork(&launch, stacks + STACK_BYTES);
        } else if (intermediate < 0) {
            error = errno;
        } else {
            int status;
            /* Already exiting (CLONE_VFORK); ECHILD: a host thread's __WALL wait took it. */
            while (waitpid(intermediate, &status, __WCLONE) < 0 && errno == EINTR) {}
        }
    } else {
        pid_t child = __clone(program_main, launch.program_stack + STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD, &launch);
        if (child < 0) error = errno;
        else launch.pid = child;
        /* An exec that failed left a child that exited at once: reap it here. */
        if (child > 0 && launch.error) waitpid(child, NULL, 0);
    }
    pthread_setcancelstate(cancel, NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (!error) error = launch.error;
    if (!error && launch.pid <= 0) error = ECHILD;
    if (!error) *pid = launch.pid;
out:
    if (stacks != MAP_FAILED) munmap(stacks, 2 * STACK_BYTES);
    if (launch.in_fd >= 0) close(launch.in_fd);
    if (launch.out_fd >= 0) close(launch.out_fd);
    if (launch.kept_fd >= 0) close(launch.kept_fd);
    if (launch.null_fd >= 0) close(launch.null_fd);
    return error;
}
