/* Where the library itself is: dladdr on one of its own functions. */
#define _GNU_SOURCE
#include "library_path.h"

#include <dlfcn.h>
#include <string.h>

int vg_system_library_path(char *out, size_t size) {
    Dl_info info;
    if (!out || size == 0 || dladdr((void *)&vg_system_library_path, &info) == 0 || !info.dli_fname) return -1;
    size_t length = strlen(info.dli_fname);
    if (length == 0 || length >= size) return -1;
    memcpy(out, info.dli_fname, length + 1);
    return 0;
}
