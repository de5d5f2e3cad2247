#ifndef VG_LIBRARY_PATH_H
#define VG_LIBRARY_PATH_H

#include <stddef.h>

/* The file the library (or program) holding this function was loaded
 * from, as dladdr reports it, copied into `out` (NUL-terminated); 0 on
 * success, -1 when unknown or longer than `size`. Where the background
 * refresher's command is found (docs/design.md, "The background refresh"). */
__attribute__((visibility("hidden"))) int vg_system_library_path(char *out, size_t size);

#endif
