#define _GNU_SOURCE
#include "system_shim.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

extern char **environ;

/* Set in every fork() child, grandchildren included (the handler is
 * inherited), before the child runs any code of its own: a child must not
 * touch a lock or state another thread of the parent may have held. */
static volatile sig_atomic_t forked;

static void mark_forked(void) { forked = 1; }

__attribute__((constructor)) static void watch_for_fork(void)
{
    pthread_atfork(NULL, NULL, mark_forked);
}

int vg_system_is_fork_child(void)
{
    return forked;
}

int vg_system_open(const char *path, int flags, unsigned int mode)
{
    return open(path, flags, (mode_t)mode);
}

int vg_system_openat(int directory, const char *name, int flags, unsigned int mode)
{
    return openat(directory, name, flags, (mode_t)mode);
}

int vg_system_pipe(int fds[2], int flags)
{
    return pipe2(fds, flags);
}

int vg_system_fcntl(int fd, int command, int argument)
{
    return fcntl(fd, command, argument);
}

char **vg_system_environ(void)
{
    return environ;
}

int vg_system_is_regular(mode_t mode)
{
    return S_ISREG(mode);
}

int vg_system_is_directory(mode_t mode)
{
    return S_ISDIR(mode);
}
