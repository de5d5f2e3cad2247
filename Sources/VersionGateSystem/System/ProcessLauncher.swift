import VersionGateCore
import VersionGateWire
import SystemShim

/// Running a program the way the library runs `xdg-open`: one argument,
/// an argument vector (no shell), the wait bounded by a deadline. Behind a
/// protocol so tests can put another launcher under `System.processes`;
/// the production one is `POSIXProcesses`.
package protocol ProcessLauncher: Sendable {
    func run(_ program: String, _ argument: String, until deadline: Deadline) -> ProcessOutcome
    /// Starts `path` with `arguments` after the first, with this process's
    /// descriptors 0-2 (a restart: docs/design.md, "Updating in place").
    /// With `wait`, its exit status once it ends; else nil once it started.
    func start(_ path: String, arguments: [String], wait: Bool) -> Result<Int32?, GateFailure>
}

extension ProcessLauncher {
    package func start(_ path: String, arguments: [String], wait: Bool) -> Result<Int32?, GateFailure> {
        let flags = Int32(VG_SPAWN_KEEP_STDIO) | (wait ? 0 : Int32(VG_SPAWN_DETACHED))
        switch ProgramStart(path, arguments: [path] + arguments.dropFirst(), flags: flags).start() {
        case .failure(let error): return .failure(GateFailure(.update, "cannot start \(path): \(error.text)"))
        case .success(let pid):
            guard wait else { return .success(nil) }
            guard let status = ProgramStart.waitForExit(pid) else {
                return .failure(GateFailure(.update, "lost \(path) (pid \(pid))"))
            }
            return .success(status)
        }
    }
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
