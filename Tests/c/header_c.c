/*
 * The public header alone, compiled as strict C99:
 *   gcc -std=c99 -Wall -Wextra -pedantic -Werror -c header_c.c
 * It must be self-contained, and these declarations pin the ABI: a changed
 * signature, code or status value fails the compile.
 */
#include "versiongate.h"

/* Compile-time asserts that C99 accepts (no _Static_assert before C11). */
#define VG_ASSERT(name, cond) typedef char vg_assert_##name[(cond) ? 1 : -1]

#include "header_abi.inc"
