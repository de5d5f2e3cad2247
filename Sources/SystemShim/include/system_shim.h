/* open(2), fcntl(2), stat's file types and environ for Swift without the
 * Glibc overlay: C variadic functions, macros like S_IFMT and environ reach
 * Swift only through the overlay's Swift wrappers, and using one links in
 * the overlay's whole object, and with it ~100 libm functions the loader
 * must bind at every start (BENCHMARKS.md, cold process).
 * Hidden: internal to libversiongate.so, never part of its ABI. */
#ifndef VG_SYSTEM_SHIM_H
#define VG_SYSTEM_SHIM_H

#include <sys/stat.h>

#define VG_SYSTEM_HIDDEN __attribute__((visibility("hidden")))

/* pipe2(fds, flags) (_GNU_SOURCE, which Swift's view of the headers lacks). */
VG_SYSTEM_HIDDEN int vg_system_pipe(int fds[2], int flags);

/* open(path, flags, mode); mode is used only with O_CREAT. */
VG_SYSTEM_HIDDEN int vg_system_open(const char *path, int flags, unsigned int mode);

/* openat(directory, name, flags, mode); mode is used only with O_CREAT. */
VG_SYSTEM_HIDDEN int vg_system_openat(int directory, const char *name, int flags, unsigned int mode);

/* fcntl(fd, command, argument) for the commands that take an int or none. */
VG_SYSTEM_HIDDEN int vg_system_fcntl(int fd, int command, int argument);

/* The process environment, as posix_spawn takes it. */
VG_SYSTEM_HIDDEN char **vg_system_environ(void);

/* 1 in a fork() child of the process that loaded the library (a
 * pthread_atfork handler registered at load sets it), else 0. */
VG_SYSTEM_HIDDEN int vg_system_is_fork_child(void);

/* S_ISREG and S_ISDIR: 1 or 0. */
VG_SYSTEM_HIDDEN int vg_system_is_regular(mode_t mode);
VG_SYSTEM_HIDDEN int vg_system_is_directory(mode_t mode);

#endif
