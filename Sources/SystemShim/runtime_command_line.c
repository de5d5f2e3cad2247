/* The statically linked Swift runtime finds the host's argv at load time by
 * parsing /proc/self/maps (its CommandLine.cpp: ~120k instructions and five
 * system calls in every process that loads us). The library never reads
 * CommandLine; defining the runtime's two entry points here keeps that
 * object out of the link. Only in the shipped build (scripts/build defines
 * VG_STATIC_RUNTIME): linked against a shared runtime, as `swift test` is,
 * these would override the runtime's own for the whole process. Local to
 * the library (scripts/exports.map), so no host sees them. */
#ifdef VG_STATIC_RUNTIME

#include <stddef.h>

static char *no_arguments[] = { NULL };

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen)
{
    *outArgLen = 0;
    return no_arguments;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc)
{
    (void)argv;
    (void)argc;
}

#endif
