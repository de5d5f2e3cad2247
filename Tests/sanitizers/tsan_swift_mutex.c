/*
 * tsan_swift_mutex.c — makes ThreadSanitizer see Swift's Mutex as a lock.
 *
 * Only for ThreadSanitizer runs (scripts/proof); never part of the library.
 * LD_PRELOADed (ahead of the TSan runtime when that is preloaded too), it
 * sits between libversiongate.so and the TSan runtime / libc. It needs the
 * shared TSan runtime: with the static one (clang's default for programs,
 * and swift test) the program's own definitions win and it has no effect,
 * so scripts/proof links its TSan programs with -shared-libsan.
 *
 * THE PROBLEM. Every lock in VersionGate is a Synchronization.Mutex (Swift 6
 * stdlib), linked statically into libversiongate.so. On Linux it is a
 * priority-inheritance futex:
 *   lock:   compare-exchange 0 -> tid (acquire)         inlined, instrumented
 *           else _lockSlow: spin on compare-exchange,    stdlib, NOT instrumented
 *                then syscall(SYS_futex, FUTEX_LOCK_PI)   kernel takes the lock
 *   unlock: compare-exchange tid -> 0 (release)          inlined, instrumented
 *           else (waiters) syscall(SYS_futex, FUTEX_UNLOCK_PI)  kernel hands over
 * TSan only learns of synchronisation from instrumented atomics and from the
 * functions it intercepts. A lock taken in _lockSlow (uninstrumented spin, or
 * the kernel) or handed over by FUTEX_UNLOCK_PI gives it no happens-before
 * edge, so under contention it reports "data race" / "Swift access race"
 * between two critical sections of one Mutex, which cannot overlap.
 * (Seen as: LocalDocumentSource.swift:35 vs :47, SessionStore.swift:15,
 * LoginSession.swift:25, ... all inside withLock of the same Mutex.)
 *
 * THE MODEL. Two definitions, each forwarding to the real one:
 *  1. __tsan_atomic32_compare_exchange_val (called by the instrumented,
 *     inlined Mutex fast path): when a Mutex lock attempt (expected 0,
 *     desired = this thread's id, acquire/relaxed) fails because the lock is
 *     held, it takes the lock the way _lockSlow's final phase does —
 *     FUTEX_LOCK_PI, the kernel queues the thread and hands it the lock — and
 *     returns success. So the uninstrumented spin phase is never used, and
 *     every acquisition is either an instrumented atomic or a FUTEX_LOCK_PI.
 *  2. syscall(): FUTEX_UNLOCK_PI -> __tsan_release(word) before the call;
 *     FUTEX_LOCK_PI/LOCK_PI2/TRYLOCK_PI succeeded -> __tsan_acquire(word)
 *     after it. Exactly the edges the kernel provides; the same annotation
 *     TSan applies inside its pthread_mutex_lock/unlock interceptors, on the
 *     address the fast path's atomics use.
 * Mutual exclusion is unchanged (same futex word, same protocol, the kernel
 * still arbitrates), only the choice "spin vs. wait in the kernel" differs.
 * The model adds no edge between code that is not ordered by a Mutex, so it
 * cannot hide a race on data that a Mutex does not protect.
 *
 * LIMIT: a Mutex *try*-lock (withLockIfAvailable) has the same
 * compare-exchange shape; under this model it would wait instead of failing.
 * VersionGate has none; scripts/proof refuses to run TSan if Sources/ gains
 * one, so this file gets revisited rather than silently changing behaviour.
 *
 * Build: cc -shared -fPIC -O1 -o libtsan_swift_mutex.so tsan_swift_mutex.c -ldl
 * (not itself instrumented; __tsan_* are resolved in the TSan runtime).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

/* From compiler-rt's tsan_interface_atomic.h. */
enum { MO_RELAXED = 0, MO_ACQUIRE = 2 };
/* Weak: NULL in a process without a TSan runtime (see below). */
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));

typedef long (*syscall_fn)(long, ...);
typedef int (*cas32_fn)(volatile int *, int, int, int, int);

static void *next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p == NULL) {
        fprintf(stderr, "tsan_swift_mutex: %s not found after this library "
                        "(preload it ahead of the TSan runtime)\n", name);
        abort();
    }
    return p;
}

/* Looked up on first use (idempotent; pointer-sized atomic accesses). Not in
 * a constructor: LD_PRELOAD also reaches processes without a TSan runtime
 * (TSan's own llvm-symbolizer child), which never call the wrappers below
 * with a futex PI operation or a TSan atomic and must not be disturbed. */
static syscall_fn real_syscall_ptr;
static cas32_fn real_cas32_ptr;

static syscall_fn real_syscall(void)
{
    syscall_fn fn = __atomic_load_n(&real_syscall_ptr, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (syscall_fn)next_symbol("syscall");
        __atomic_store_n(&real_syscall_ptr, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

static cas32_fn real_cas32(void)
{
    cas32_fn fn = __atomic_load_n(&real_cas32_ptr, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (cas32_fn)next_symbol("__tsan_atomic32_compare_exchange_val");
        __atomic_store_n(&real_cas32_ptr, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

static int is_pi_lock(int cmd)
{
    return cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_TRYLOCK_PI;
}

long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
    long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
    va_end(ap);

    if (number != SYS_futex)
        return real_syscall()(number, a1, a2, a3, a4, a5, a6);

    void *word = (void *)a1;
    int cmd = (int)a2 & FUTEX_CMD_MASK;
    if (cmd == FUTEX_UNLOCK_PI && __tsan_release)
        __tsan_release(word);
    long ret = real_syscall()(number, a1, a2, a3, a4, a5, a6);
    if (ret == 0 && is_pi_lock(cmd) && __tsan_acquire)
        __tsan_acquire(word);
    return ret;
}

static __thread int my_tid;

int __tsan_atomic32_compare_exchange_val(volatile int *a, int c, int v, int mo, int fmo)
{
    int old = real_cas32()(a, c, v, mo, fmo);
    if (old == c || c != 0 || mo != MO_ACQUIRE || fmo != MO_RELAXED)
        return old;
    if (my_tid == 0)
        my_tid = (int)gettid();
    if (v != my_tid)
        return old;

    /* A Mutex lock attempt found the lock held: wait in the kernel. */
    int saved = errno;
    for (;;) {
        long r = real_syscall()(SYS_futex, a, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
        if (r == 0) {
            __tsan_acquire((void *)a);
            errno = saved;
            return c; /* the caller sees "exchanged": it holds the lock */
        }
        if (errno != EINTR && errno != EAGAIN) {
            errno = saved;
            return old; /* let the library's own slow path handle (and report) it */
        }
    }
}
