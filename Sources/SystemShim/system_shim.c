#include "system_shim.h"

#include <fcntl.h>
#include <unistd.h>

extern char **environ;

int vg_system_open(const char *path, int flags, unsigned int mode)
{
    return open(path, flags, (mode_t)mode);
}

int vg_system_openat(int directory, const char *name, int flags, unsigned int mode)
{
    return openat(directory, name, flags, (mode_t)mode);
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
