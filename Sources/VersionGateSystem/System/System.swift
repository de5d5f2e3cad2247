import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The seam between the library and the machine it runs on: the wall
/// clock, the environment, files and processes. Every client holds one; the
/// C ABI's hold `live`, and tests build their own (a clock of the test's
/// walks a remote source through days). The network has a seam of its own,
/// `HTTPTransport`, per source.
package struct System: Sendable {
    /// Unix seconds.
    package var wallClock: @Sendable () -> Int64
    package var environment: CheckEnvironment
    package var files: any FileSystem
    package var processes: any ProcessLauncher
    /// Seconds since this boot, with the boot's id: a clock no one sets,
    /// so a wall clock moved back cannot make an old cache young.
    package var bootClock: @Sendable () -> BootInstant?

    package init(wallClock: @escaping @Sendable () -> Int64 = System.realTimeSeconds,
                 environment: CheckEnvironment = .current(), files: any FileSystem = POSIXFiles(),
                 processes: any ProcessLauncher = POSIXProcesses(),
                 bootClock: @escaping @Sendable () -> BootInstant? = BootInstant.now) {
        self.wallClock = wallClock
        self.environment = environment
        self.files = files
        self.processes = processes
        self.bootClock = bootClock
    }

    package static let live = System()

    @Sendable package static func realTimeSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
