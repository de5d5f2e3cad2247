/* The one trust rule; see file_trust.h. */
#define _GNU_SOURCE
#include "file_trust.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The uid the kernel shows for one a user namespace does not map. */
static uid_t overflow_uid(void)
{
    char text[16] = {0};
    int fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 65534;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    char *end;
    unsigned long uid = n > 0 ? strtoul(text, &end, 10) : 65534;
    return n > 0 && end != text ? (uid_t)uid : 65534;
}

static int under(const char *path, const char *directory)
{
    size_t n = strlen(directory);
    return strncmp(path, directory, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* A file of the app's or the runtime's deploy directory inside a Flatpak
 * sandbox, shown as the overflow uid: root's (see file_trust.h). */
static int is_flatpak_deploy_file(const struct stat *s, int fd, const char *path)
{
    if (s->st_uid != overflow_uid()) return 0;
    char resolved[PATH_MAX];
    if (fd >= 0) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, resolved, sizeof resolved - 1);
        if (n <= 0) return 0;
        resolved[n] = '\0';
        path = resolved;
    }
    if (!path || !(under(path, "/app") || under(path, "/usr"))) return 0;
    struct stat info;
    return lstat("/.flatpak-info", &info) == 0 && S_ISREG(info.st_mode);
}

int vg_system_trust(const struct stat *s, int fd, const char *path, int root_may_own, int group_may_write)
{
    int problems = 0;
    if (s->st_uid != geteuid() && !(root_may_own && (s->st_uid == 0 || is_flatpak_deploy_file(s, fd, path))))
        problems |= VG_TRUST_OWNER;
    if (s->st_mode & S_IWOTH) problems |= VG_TRUST_OTHERS_WRITE;
    if ((s->st_mode & S_IWGRP) && !group_may_write) problems |= VG_TRUST_GROUP_WRITE;
    return problems;
}
