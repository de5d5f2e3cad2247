/* The two glibc symbols newer than 2.31 that the prebuilt static archives
 * linked into the library reference (docs/design.md, "Portable build"):
 *  - _dl_find_object (2.35), which GCC 12's unwinder (libgcc_eh.a) calls to
 *    find a return address's .eh_frame_hdr;
 *  - __libc_single_threaded (2.32), which GCC 12's libstdc++.a reads to skip
 *    atomic operations in a process with one thread.
 * scripts/build links against Debian 11's glibc 2.31 (scripts/debian11), whose
 * headers declare neither, and then these local definitions answer the
 * references: hidden, so the library exports neither (and interposes on no
 * other object's). Built against a newer glibc (`swift test`), the file is
 * empty and glibc's own are used. Tests/c/glibc_compat_test.c compares this
 * _dl_find_object with glibc's. */
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
    int found;
};

/* The object whose PT_LOAD segments hold the address: its mapping spans its
 * lowest segment start to its highest segment end, as glibc reports it. */
static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *search = data;
    uintptr_t start = UINTPTR_MAX, end = 0;
    int holds = 0;
    void *eh_frame = NULL;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        uintptr_t from = info->dlpi_addr + segment->p_vaddr;
        if (segment->p_type == PT_GNU_EH_FRAME) eh_frame = (void *)from;
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t to = from + segment->p_memsz;
        if (from < start) start = from;
        if (to > end) end = to;
        if (search->address >= from && search->address < to) holds = 1;
    }
    if (!holds) return 0;
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
    struct search search = { (uintptr_t)address, result, 0 };
    dl_iterate_phdr(visit, &search);
    return search.found ? 0 : -1;
}
#endif
