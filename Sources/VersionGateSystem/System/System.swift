import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The seam between a check and the machine it runs on: the wall clock and
/// the environment, the two inputs that change what a check decides. Every
/// client holds one; the C ABI's clients hold `live`, and tests build their
/// own (a fixed clock walks a remote source through days in a test).
/// Files, network and processes are reached through their own narrow
/// types (`DocumentFile`, `PrivateDirectory`, `HTTPTransport`, `URLOpener`).
package struct System: Sendable {
    /// Unix seconds.
    package var wallClock: @Sendable () -> Int64
    package var environment: CheckEnvironment

    package init(wallClock: @escaping @Sendable () -> Int64 = System.realTimeSeconds,
         environment: CheckEnvironment = .current()) {
        self.wallClock = wallClock
        self.environment = environment
    }

    package static let live = System()

    @Sendable package static func realTimeSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
