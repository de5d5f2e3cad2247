/*
 * LD_PRELOAD'ed by Tests/python/test_old_curl.py: a name server that never
 * answers, without a name server. getaddrinfo for $VG_STALL_HOST sleeps
 * $VG_STALL_SECONDS and then fails as a timed-out lookup does; every other
 * name goes to the real getaddrinfo. No packet leaves the machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **out)
{
    const char *stalled = getenv("VG_STALL_HOST");
    if (node && stalled && strcmp(node, stalled) == 0) {
        const char *seconds = getenv("VG_STALL_SECONDS");
        sleep(seconds ? (unsigned)atoi(seconds) : 10);
        return EAI_AGAIN;
    }
    int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    *(void **)&real = dlsym(RTLD_NEXT, "getaddrinfo");
    return real(node, service, hints, out);
}
