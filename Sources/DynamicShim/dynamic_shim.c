/* See include/dynamic_shim.h. */
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <string.h>

const char *vgh_resolve_all(void *library, const vgh_symbol *symbols, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        void *found = dlsym(library, symbols[i].name);
        if (!found) return symbols[i].name;
        memcpy(symbols[i].slot, &found, sizeof found); /* an object pointer into a function pointer */
    }
    return NULL;
}
