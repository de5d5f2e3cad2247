/* Sources/SystemShim/glibc_compat.c's _dl_find_object against glibc's own
 * (2.35 and later, this machine's): the same answer for addresses in this
 * program, in libc, in its data, and none for the stack or NULL.
 * Tests/c/run.sh compiles glibc_compat.c against Debian 11's headers (so
 * the definitions are compiled in) with its symbols renamed compat_*,
 * and links this program against this machine's glibc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int compat_dl_find_object(void *address, struct dl_find_object *result);
extern char compat_libc_single_threaded;

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

int main(void)
{
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
