#include "system_facts.h"

#include <gnu/libc-version.h>

const char *vg_system_libc_version(void) { return gnu_get_libc_version(); }
