import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// A point on the monotonic clock (wall-clock jumps cannot stretch it).
package struct Deadline: Sendable {
    private let endNanoseconds: Int64

    package init(afterMilliseconds ms: Int) {
        endNanoseconds = Deadline.nowNanoseconds() &+ Int64(ms) &* 1_000_000
    }

    /// At `endNanoseconds` on CLOCK_MONOTONIC, which every process of this
    /// machine (and time namespace) shares: the helper keeps the host's
    /// deadline itself, not one started late by the helper's own start.
    package init(atNanoseconds endNanoseconds: Int64) {
        self.endNanoseconds = endNanoseconds
    }

    package var nanoseconds: Int64 { endNanoseconds }

    /// Whole milliseconds left, rounded up so a live deadline never reads 0.
    package var remainingMilliseconds: Int {
        let left = endNanoseconds &- Deadline.nowNanoseconds()
        return left <= 0 ? 0 : Int((left &+ 999_999) / 1_000_000)
    }

    package static func nowNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }
}
