/* LD_PRELOAD shim for warm_alloc_test.c: counts every allocation call of
 * the process (malloc, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign) and hands the rest to glibc. alloc_count() reads the total. */
#define _GNU_SOURCE
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long calls;

unsigned long alloc_count(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }

static void counted(void) { __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { counted(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { counted(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size)
{
    counted();
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
