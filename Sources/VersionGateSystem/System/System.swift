import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The seam between the library and the machine it runs on: the wall
/// clock, the environment, files and processes. Every client holds one; the
/// C ABI's hold `live`, and tests build their own (a clock of the test's
/// walks a remote source through days). Where fetches are served is
/// `helper`, a door at the wire.
package struct System: Sendable {
    /// Unix seconds.
    package var wallClock: @Sendable () -> Int64
    package var environment: CheckEnvironment
    package var files: any FileSystem
    package var processes: any ProcessLauncher
    /// Seconds since this boot, with the boot's id: a clock no one sets,
    /// so a wall clock moved back cannot make an old cache young.
    package var bootClock: @Sendable () -> BootInstant?
    /// Seconds east of UTC in the user's time zone at an instant (the grace
    /// period's date is the user's local date).
    package var utcOffset: @Sendable (Int64) -> Int64
    /// Where remote sources' fetches are served: the helper program (every
    /// host); tests on a clock of their own serve them in their process.
    package var helper: any HelperDoor
    /// The Flatpak, Snap or AppImage this runs in, from `environment` and
    /// `files` (a client detects it again when it is made).
    package var sandbox: Sandbox
    /// Where the administrator's policy files are (docs/design.md, "The
    /// administrator's policy"); a test's own directory in tests.
    package var policyDirectory = MachinePaths.policyDirectory
    /// A program's standard output when it exits 0 (who owns a program).
    package var programOutput: @Sendable (_ program: String, _ arguments: [String]) -> String? = ProgramOutput.read

    package init(wallClock: @escaping @Sendable () -> Int64 = System.realTimeSeconds,
                 environment: CheckEnvironment = .current(), files: any FileSystem = POSIXFiles(),
                 processes: any ProcessLauncher = POSIXProcesses(),
                 bootClock: @escaping @Sendable () -> BootInstant? = BootInstant.now,
                 utcOffset: @escaping @Sendable (Int64) -> Int64 = System.localUTCOffset,
                 helper: any HelperDoor = HelperProgram()) {
        self.helper = helper
        sandbox = Sandbox.detect(environment, files: files)
        self.wallClock = wallClock
        self.utcOffset = utcOffset
        self.environment = environment
        self.files = files
        self.processes = processes
        self.bootClock = bootClock
    }

    package static let live = System()

    /// The administrator's policy as its files say now.
    package func policyFiles() -> PolicyReading { PolicyFiles.read(directory: policyDirectory, files: files) }

    /// The commit this Flatpak app runs; nil outside one.
    package var flatpakCommit: String? { sandbox.isFlatpakApp ? ProcessFacts.flatpakCommit : nil }

    /// The process's time zone (TZ, else /etc/localtime) through localtime_r.
    @Sendable package static func localUTCOffset(_ at: Int64) -> Int64 {
        var seconds = time_t(at)
        var local = tm()
        return localtime_r(&seconds, &local) == nil ? 0 : Int64(local.tm_gmtoff)
    }

    @Sendable package static func realTimeSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
