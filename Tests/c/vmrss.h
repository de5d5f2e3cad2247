/* VmRSS of this process in KiB, from /proc/self/status; -1 if unknown.
 * Shared by Tests/c/cold_faults.c and bench/cold_check.c. */
#ifndef VERSIONGATE_VMRSS_H
#define VERSIONGATE_VMRSS_H

#include <stdio.h>

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

#endif
