/* The test programs' one assertion: CHECK(cond) counts a pass, or prints
 * "FAIL file:line: cond" and counts a failure; main prints the totals. */
#ifndef VG_TEST_CHECK_H
#define VG_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond) check_((cond) ? 1 : 0, #cond, __FILE__, __LINE__)

static void check_(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s:%d: %s\n", file, line, what);
    }
}

#endif
