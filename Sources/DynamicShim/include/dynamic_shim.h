/* What the shims that load a library at run time (libcurl, libcrypto,
 * libexpat) share: resolving a table of function names into their
 * function-pointer slots. Internal: no vg_ symbol, nothing exported. */
#ifndef VG_DYNAMIC_SHIM_H
#define VG_DYNAMIC_SHIM_H

#include <stddef.h>

/* One function a shim needs: its name, and the address of the function
 * pointer that receives it. */
typedef struct vgh_symbol {
    const char *name;
    void *slot;
} vgh_symbol;

/* Resolves every name of `symbols` in `library` (a dlopen handle) into its
 * slot. NULL when all were found, else the first name that was not (the
 * slots after it are left alone). */
const char *vgh_resolve_all(void *library, const vgh_symbol *symbols, size_t count);

#endif
