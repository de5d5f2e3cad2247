import VersionGateCore
import VersionGateWire

/// Running a program the way the library runs `xdg-open`: one argument,
/// an argument vector (no shell), the wait bounded by a deadline. Behind a
/// protocol so tests can put another launcher under `System.processes`;
/// the production one is `POSIXProcesses`.
package protocol ProcessLauncher: Sendable {
    func run(_ program: String, _ argument: String, until deadline: Deadline) -> ProcessOutcome
}

package enum ProcessOutcome: Sendable, Equatable {
    case exited(Int32)
    case killed(signal: Int32)
    /// Left running at the deadline (it may be the browser itself).
    case stillRunning
    /// Started, but its status was collected by someone else (a host that
    /// ignores SIGCHLD).
    case statusUnavailable
    case cannotStart(errno: Int32)
}
