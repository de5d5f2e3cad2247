/* What the requirement clauses compare (docs/design.md, "Requirements")
 * and no Swift module reaches. */
#ifndef VERSIONGATE_SYSTEM_FACTS_H
#define VERSIONGATE_SYSTEM_FACTS_H

/* gnu_get_libc_version(): the running glibc, e.g. "2.36" (static). */
__attribute__((visibility("hidden"))) const char *vg_system_libc_version(void);

#endif
