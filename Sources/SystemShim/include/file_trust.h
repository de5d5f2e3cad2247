#ifndef VG_FILE_TRUST_H
#define VG_FILE_TRUST_H

#include <sys/stat.h>

/* Why a file or directory may not decide anything: a set of these bits,
 * 0 when it may (each caller says the one it thinks matters most). */
enum {
    VG_TRUST_OWNER = 1,          /* owned by another user (or by root, where only the user may own it) */
    VG_TRUST_OTHERS_WRITE = 2,   /* writable by every user */
    VG_TRUST_GROUP_WRITE = 4     /* writable by its group, where that is not allowed */
};

/* The one trust rule (docs/design.md, "The trust model"), for the library
 * (documents, its cache and state, the fetch helper) and the command's
 * --events files, which compiles this file too: owned by the effective
 * user, or by root when `root_may_own`; never writable by others; not
 * writable by its group unless `group_may_write` (a gate document, which
 * a team may share; a file inside one of the user's own 0700 directories,
 * which no group member can reach).
 *
 * Inside a Flatpak sandbox (/.flatpak-info) bubblewrap's user namespace
 * maps only the user, so root's files show as the overflow uid. Where root
 * may own, such a file counts as root's when it lies in /app or /usr: the
 * app's and the runtime's deploy directories, which flatpak mounts
 * read-only from the installation and lets nothing else mount over.
 * Where the file is comes from `fd` (open on it; -1 if none) or else
 * `path` (resolved: no symlink, no ".."; NULL if unknown). */
__attribute__((visibility("hidden"))) int vg_system_trust(const struct stat *s, int fd, const char *path,
                                                                      int root_may_own, int group_may_write);

#endif
