/* Sources/SystemShim/glibc_compat.c's _dl_find_object against glibc's own
 * (2.35 and later, this machine's): the same answer for addresses in this
 * program, in libc, in its data, and none for the stack or NULL. Its
 * __isoc23_strto* against C23's rules (glibc 2.38's own are not on every
 * machine that runs this): the 0b prefix read for base 0 and 2 only, the
 * ranges saturated with ERANGE, errno left alone on success, and every
 * other input read as C17's strto* read it.
 * Tests/c/run.sh compiles glibc_compat.c against Debian 11's headers (so
 * the definitions are compiled in) with its symbols renamed compat_*,
 * and links this program against this machine's glibc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int compat_dl_find_object(void *address, struct dl_find_object *result);
extern char compat_libc_single_threaded;
long compat_isoc23_strtol(const char *text, char **end, int base);
long long compat_isoc23_strtoll(const char *text, char **end, int base);
unsigned long compat_isoc23_strtoul(const char *text, char **end, int base);

static int in_data = 1;

static void compare(void *address, int expected_found)
{
    struct dl_find_object ours, theirs;
    memset(&ours, 0x5a, sizeof ours);
    memset(&theirs, 0x5a, sizeof theirs);
    int our_code = compat_dl_find_object(address, &ours);
    int their_code = _dl_find_object(address, &theirs);
    CHECK(our_code == their_code);
    CHECK(our_code == (expected_found ? 0 : -1));
    if (our_code != 0 || their_code != 0) return;
    CHECK(ours.dlfo_eh_frame == theirs.dlfo_eh_frame);
    CHECK(ours.dlfo_eh_frame != NULL);
    CHECK(ours.dlfo_map_start == theirs.dlfo_map_start);
    CHECK(ours.dlfo_map_end == theirs.dlfo_map_end);
    CHECK((char *)ours.dlfo_map_start <= (char *)address && (char *)address < (char *)ours.dlfo_map_end);
}

/* strtol's C23 form on `text`: the value, where it stopped, and errno. */
static void strtol_case(const char *text, int base, long value, size_t consumed, int error)
{
    char *end = NULL;
    errno = EDOM;   /* not a value strto* sets: success must leave it */
    long got = compat_isoc23_strtol(text, &end, base);
    CHECK(got == value);
    CHECK(end == text + consumed);
    CHECK(errno == (error ? error : EDOM));
    if (got != value || end != text + consumed) printf("FAIL strtol(\"%s\", %d): %ld, %td\n", text, base, got, end - text);
}

static void isoc23_cases(void)
{
    strtol_case("42", 10, 42, 2, 0);
    strtol_case("0x1f", 0, 31, 4, 0);
    strtol_case("0b101", 0, 5, 5, 0);
    strtol_case("0B101", 2, 5, 5, 0);
    strtol_case("101", 2, 5, 3, 0);
    strtol_case("0b101", 10, 0, 1, 0);      /* base 10: "0", then b */
    strtol_case("0b101", 16, 0xb101, 5, 0); /* base 16: b is a digit */
    strtol_case("0b2", 0, 0, 1, 0);         /* no binary digit after 0b */
    strtol_case("  -0b11x", 0, -3, 7, 0);
    strtol_case("+0b11", 2, 3, 5, 0);
    strtol_case("0b1111111111111111111111111111111111111111111111111111111111111111", 0, LONG_MAX, 66, ERANGE);
    strtol_case("-0b1000000000000000000000000000000000000000000000000000000000000000", 0, LONG_MIN, 67, 0);
    strtol_case("-0b1000000000000000000000000000000000000000000000000000000000000001", 0, LONG_MIN, 67, ERANGE);
    strtol_case("99999999999999999999", 10, LONG_MAX, 20, ERANGE);

    char *end = NULL;
    CHECK(compat_isoc23_strtoll("0b111", &end, 0) == 7 && *end == '\0');
    CHECK(compat_isoc23_strtoll("-0b111", &end, 2) == -7);
    CHECK(compat_isoc23_strtoll("123", &end, 0) == 123);
    errno = 0;
    CHECK(compat_isoc23_strtoul("-0b1", &end, 0) == ULONG_MAX && errno == 0);
    CHECK(compat_isoc23_strtoul("0b1010", &end, 0) == 10 && *end == '\0');
    CHECK(compat_isoc23_strtoul("0b11111111111111111111111111111111111111111111111111111111111111111", &end, 0) == ULONG_MAX
          && errno == ERANGE);
    errno = 0;
    CHECK(compat_isoc23_strtoul("18446744073709551615", &end, 10) == ULONG_MAX && errno == 0);
}

int main(void)
{
    isoc23_cases();
    int on_stack = 0;
    void *in_libc = dlsym(RTLD_DEFAULT, "printf");
    CHECK(in_libc != NULL);
    compare((void *)main, 1);
    compare((void *)compare, 1);
    compare(&in_data, 1);
    compare(in_libc, 1);
    compare((void *)dlopen, 1);
    compare(&on_stack, 0);
    compare(NULL, 0);
    void *heap = malloc(16);
    compare(heap, 0);
    free(heap);
    /* "other threads may exist": libstdc++ then always uses atomics. */
    CHECK(compat_libc_single_threaded == 0);
    printf("glibc_compat: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
