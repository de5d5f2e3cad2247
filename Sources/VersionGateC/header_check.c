/* Compile-time checks that the public header keeps the ABI Swift relies on. */
#include "versiongate.h"

_Static_assert(sizeof(vg_status) == sizeof(int), "vg_status must be int-sized");
_Static_assert(sizeof(vg_error) == sizeof(int), "vg_error must be int-sized");
_Static_assert(VG_OK == 0, "success is zero");
