/* The glibc symbols newer than 2.31 that the prebuilt static archives
 * linked into the library reference (docs/design.md, "Portable build"):
 *  - _dl_find_object (2.35), which GCC 12's unwinder (libgcc_eh.a) calls to
 *    find a return address's .eh_frame_hdr;
 *  - __libc_single_threaded (2.32), which GCC 12's libstdc++.a reads to skip
 *    atomic operations in a process with one thread;
 *  - __isoc23_strtol, __isoc23_strtoll, __isoc23_strtoul (2.38), which a
 *    Swift runtime built against glibc 2.38 or later calls (Debian 13's
 *    swiftlang 6.0.3): C23's strtol family, which also reads a 0b prefix.
 * scripts/build links against Debian 11's glibc 2.31 (scripts/debian11), whose
 * headers declare none of them, and then these local definitions answer the
 * references: hidden, so the library exports none (and interposes on no
 * other object's). Built against a newer glibc (`swift test`), the file is
 * empty and glibc's own are used. Tests/c/glibc_compat_test.c compares this
 * _dl_find_object with glibc's, and the strto* with C23's rules. */
#define _GNU_SOURCE
#include <features.h>

#if !__GLIBC_PREREQ(2, 32)
/* 0: other threads may exist, so libstdc++ always uses atomic reference
 * counts. Always correct; it is what libstdc++ did before glibc 2.32. */
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
#endif

#if !__GLIBC_PREREQ(2, 35)
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* glibc 2.35's layout: sysdeps/generic/bits/dl_find_object.h, which x86_64
 * and aarch64 both use (i386, arm and nios2 add fields of their own). */
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "glibc_compat.c: struct dl_find_object is only laid out for x86_64 and aarch64"
#endif
struct dl_find_object {
    unsigned long long int dlfo_flags;
    void *dlfo_map_start;
    void *dlfo_map_end;
    struct link_map *dlfo_link_map;
    void *dlfo_eh_frame;
    unsigned long long int dlfo_reserved[7];
};

struct search {
    uintptr_t address;
    struct dl_find_object *result;
    int visited;    /* objects seen so far: the first is the main program */
    int found;
};

/* The object whose PT_LOAD segments hold the address, as glibc reports it:
 * the span from its lowest segment start to its highest segment end; but
 * for a main program whose segments the kernel mapped with gaps between
 * them (glibc's "not contiguous": arm64's 64 KiB segment alignment on 4 KiB
 * pages), only the segment that holds the address. */
static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *search = data;
    int main_program = search->visited++ == 0;
    uintptr_t page = (uintptr_t)getpagesize();
    uintptr_t start = UINTPTR_MAX, end = 0, segment_start = 0, segment_end = 0, expected = 0;
    int holds = 0, contiguous = 1;
    void *eh_frame = NULL;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        uintptr_t from = info->dlpi_addr + segment->p_vaddr;
        if (segment->p_type == PT_GNU_EH_FRAME) eh_frame = (void *)from;
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t to = from + segment->p_memsz;
        if (expected != 0 && expected != (from & ~(page - 1))) contiguous = 0;
        expected = (to + page - 1) & ~(page - 1);
        if (from < start) start = from;
        if (to > end) end = to;
        if (search->address >= from && search->address < to) {
            holds = 1;
            segment_start = from, segment_end = to;
        }
    }
    if (!holds) return 0;
    if (main_program && !contiguous) start = segment_start, end = segment_end;
    memset(search->result, 0, sizeof *search->result);
    search->result->dlfo_map_start = (void *)start;
    search->result->dlfo_map_end = (void *)end;
    search->result->dlfo_eh_frame = eh_frame;
    /* dl_iterate_phdr gives no link_map; the unwinder reads only the
     * .eh_frame_hdr address. */
    search->found = 1;
    return 1;
}

__attribute__((visibility("hidden"))) int _dl_find_object(void *address, struct dl_find_object *result)
{
    struct search search = { (uintptr_t)address, result, 0, 0 };
    dl_iterate_phdr(visit, &search);
    return search.found ? 0 : -1;
}
#endif

#if !__GLIBC_PREREQ(2, 38)
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* Where C23's binary digits start in `text` for `base`: after optional
 * space and sign, "0b" or "0B" and a binary digit, with base 0 or 2; NULL
 * when there is no such prefix (then C23 and C17 read the same). */
static const char *binary_digits(const char *text, int base, int *negative)
{
    if (base != 0 && base != 2) return NULL;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    *negative = *p == '-';
    if (*p == '+' || *p == '-') p++;
    if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) return p + 2;
    return NULL;
}

/* A signed result in [minimum, maximum] from a sign and a magnitude. */
static long long signed_result(int negative, unsigned long long magnitude, long long minimum, long long maximum)
{
    unsigned long long limit = negative ? (unsigned long long)maximum + 1 : (unsigned long long)maximum;
    if (errno == ERANGE || magnitude > limit) {
        errno = ERANGE;
        return negative ? minimum : maximum;
    }
    if (!negative) return (long long)magnitude;
    return magnitude == limit ? minimum : -(long long)magnitude;
}

/* C23's reading of a 0b-prefixed signed value into *value; 0 when `text`
 * has no such prefix for `base` (then C17's function reads it the same). */
static int binary_signed(const char *text, char **end, int base, long long minimum, long long maximum,
                         long long *value)
{
    int negative = 0;
    const char *digits = binary_digits(text, base, &negative);
    if (!digits) return 0;
    int saved = errno;
    errno = 0;
    *value = signed_result(negative, strtoull(digits, end, 2), minimum, maximum);
    if (errno == 0) errno = saved;
    return 1;
}

__attribute__((visibility("hidden"))) long __isoc23_strtol(const char *text, char **end, int base)
{
    long long value;
    return binary_signed(text, end, base, LONG_MIN, LONG_MAX, &value) ? (long)value : strtol(text, end, base);
}

__attribute__((visibility("hidden"))) long long __isoc23_strtoll(const char *text, char **end, int base)
{
    long long value;
    return binary_signed(text, end, base, LLONG_MIN, LLONG_MAX, &value) ? value : strtoll(text, end, base);
}

/* As strtoul: a negative value is negated in unsigned arithmetic. */
__attribute__((visibility("hidden"))) unsigned long __isoc23_strtoul(const char *text, char **end, int base)
{
    int negative = 0;
    const char *digits = binary_digits(text, base, &negative);
    if (!digits) return strtoul(text, end, base);
    int saved = errno;
    errno = 0;
    unsigned long long magnitude = strtoull(digits, end, 2);
    if (errno == ERANGE || magnitude > ULONG_MAX) {
        errno = ERANGE;
        return ULONG_MAX;
    }
    errno = saved;
    return negative ? -(unsigned long)magnitude : (unsigned long)magnitude;
}
#endif
