import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// A lock with a condition variable on the monotonic clock: what
/// Synchronization's Mutex lacks, a wait that ends at a Deadline. Nobody
/// holds it across I/O: it guards a few fields and a wait.
package final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)   // Deadline's clock
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: sleeps until `broadcast` (or a spurious wake-up:
    /// callers loop on their own condition) or `deadline`. false once the
    /// deadline has passed.
    package func wait(until deadline: Deadline) -> Bool {
        var end = deadline.monotonicTimespec
        return pthread_cond_timedwait(condition, mutex, &end) != ETIMEDOUT
    }

    /// With the lock held: wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
