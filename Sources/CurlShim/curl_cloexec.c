/*
 * libcurl's own descriptors close-on-exec from their birth. libcurl 7.68
 * to 7.88 (at least) makes AF_UNIX socketpairs without SOCK_CLOEXEC: the
 * wakeup pair of the multi handle every curl_easy_perform creates, and the
 * threaded resolver's pair for each name it resolves itself. No option
 * asks otherwise, and marking them FD_CLOEXEC afterwards leaves a window
 * in which a host thread's fork + exec (system(), posix_spawn, which run
 * no atfork handler) inherits them for the child's whole life.
 *
 * So libcurl's own references to socketpair and socket (its GOT slots:
 * every libcurl the project supports calls them through the PLT) are
 * pointed, once, before libcurl makes any descriptor, at versions that add
 * SOCK_CLOEXEC. Only libcurl's slots change; nothing else in the process
 * sees it. A slot holding anything but libc's function (someone else's
 * hook) is left alone. A host that uses libcurl itself shares the object
 * (dlopen returns the loaded one), so its transfers' descriptors become
 * close-on-exec too; no program relies on inheriting libcurl's sockets.
 */
#define _GNU_SOURCE
#include "curl_api.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#if __ELF_NATIVE_CLASS == 64
#define RELOCATION_SYMBOL ELF64_R_SYM
#else
#define RELOCATION_SYMBOL ELF32_R_SYM
#endif

static int cloexec_socket(int domain, int type, int protocol)
{
    return socket(domain, type | SOCK_CLOEXEC, protocol);
}

static int cloexec_socketpair(int domain, int type, int protocol, int pair[2])
{
    return socketpair(domain, type | SOCK_CLOEXEC, protocol, pair);
}

typedef struct replacement {
    const char *name;
    void *original, *replacement;
} replacement;

typedef struct walk {
    replacement *replacements;
    size_t count;
    int patched;                   /* slots pointed at our versions */
} walk;

/* Dynamic-section addresses: glibc has already added the load address
 * to them in place; an unadjusted one (below it) gets it added here. */
static uintptr_t absolute(uintptr_t base, uintptr_t address)
{
    return address < base ? address + base : address;
}

/* Writes `value` into `slot`, making a read-only (RELRO) page writable
 * for the moment it takes. */
static int write_slot(void **slot, void *value, uintptr_t relro_start, uintptr_t relro_end)
{
    uintptr_t at = (uintptr_t)slot;
    int in_relro = at >= relro_start && at + sizeof *slot <= relro_end;
    long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return 0;
    void *page = (void *)(at & ~((uintptr_t)page_size - 1));
    size_t span = (at + sizeof *slot) - (uintptr_t)page > (size_t)page_size ? 2 * (size_t)page_size
                                                                             : (size_t)page_size;
    if (in_relro && mprotect(page, span, PROT_READ | PROT_WRITE) != 0) return 0;
    __atomic_store_n(slot, value, __ATOMIC_SEQ_CST);
    if (in_relro) (void)mprotect(page, span, PROT_READ);
    return 1;
}

static void patch_relocations(walk *w, uintptr_t base, const ElfW(Rela) *table, size_t bytes,
                              const ElfW(Sym) *symbols, const char *names, uintptr_t relro_start,
                              uintptr_t relro_end)
{
    if (!table || !symbols || !names) return;
    for (size_t i = 0; i < bytes / sizeof *table; i++) {
        size_t index = RELOCATION_SYMBOL(table[i].r_info);
        if (index == 0) continue;
        const char *name = names + symbols[index].st_name;
        for (size_t r = 0; r < w->count; r++) {
            if (strcmp(name, w->replacements[r].name) != 0) continue;
            void **slot = (void **)(base + table[i].r_offset);
            if (*slot == w->replacements[r].original &&
                write_slot(slot, w->replacements[r].replacement, relro_start, relro_end))
                w->patched++;
        }
    }
}

/* One loaded object: libcurl's (by file name, which also finds the real
 * library behind a forwarding one of the same name). */
static int patch_object(struct dl_phdr_info *info, size_t size, void *context)
{
    (void)size;
    walk *w = context;
    const char *path = info->dlpi_name ? info->dlpi_name : "";
    const char *file = strrchr(path, '/');
    file = file ? file + 1 : path;
    if (strncmp(file, "libcurl", 7) != 0) return 0;

    uintptr_t base = info->dlpi_addr, relro_start = 0, relro_end = 0;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)(base + header->p_vaddr);
        if (header->p_type == PT_GNU_RELRO) {
            relro_start = base + header->p_vaddr;
            relro_end = relro_start + header->p_memsz;
        }
    }
    if (!dynamic) return 0;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *plt = NULL, *data = NULL;
    size_t plt_bytes = 0, data_bytes = 0;
    int plt_is_rela = 0;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)absolute(base, d->d_un.d_ptr); break;
        case DT_STRTAB: names = (const char *)absolute(base, d->d_un.d_ptr); break;
        case DT_JMPREL: plt = (const ElfW(Rela) *)absolute(base, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: plt_bytes = d->d_un.d_val; break;
        case DT_PLTREL: plt_is_rela = d->d_un.d_val == DT_RELA; break;
        case DT_RELA: data = (const ElfW(Rela) *)absolute(base, d->d_un.d_ptr); break;
        case DT_RELASZ: data_bytes = d->d_un.d_val; break;
        default: break;
        }
    }
    /* PLT calls, and GOT loads of a build made with -fno-plt. */
    if (plt_is_rela) patch_relocations(w, base, plt, plt_bytes, symbols, names, relro_start, relro_end);
    patch_relocations(w, base, data, data_bytes, symbols, names, relro_start, relro_end);
    return 0;
}

int vgh_curl_make_descriptors_cloexec(void)
{
    /* libc's functions as libcurl was bound to them (RTLD_NOW: every slot
     * is already resolved when this runs). */
    replacement replacements[] = {
        { "socketpair", (void *)socketpair, (void *)cloexec_socketpair },
        { "socket", (void *)socket, (void *)cloexec_socket },
    };
    walk w = { replacements, sizeof replacements / sizeof replacements[0], 0 };
    dl_iterate_phdr(patch_object, &w);
    return w.patched;
}
