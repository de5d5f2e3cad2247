import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The ProcessLauncher of the real machine: the program found
/// in an absolute $PATH entry (an empty or relative entry means the working
/// directory, where anyone may have put an `xdg-open`), with an argument
/// vector (no shell ever parses an argument), in a new session, with
/// stdin/stdout/stderr on /dev/null and none of the host's other
/// descriptors, default signal dispositions and an empty signal mask.
///
/// The wait is bounded: `waitpid(WNOHANG)` polling until the deadline. A
/// child still running then is left running (it may be the browser itself)
/// and a detached thread blocked in `waitpid` for that one pid reaps it when
/// it ends, so no zombie is left behind and the caller never waits longer.
package struct POSIXProcesses: ProcessLauncher {
    package init() {}

    package func run(_ program: String, _ argument: String, until deadline: Deadline) -> ProcessOutcome {
        guard let executable = Self.resolve(program, path: CheckEnvironment.current().value("PATH")) else {
            return .cannotStart(errno: ENOENT)
        }
        switch Self.spawn(executable: executable, [program, argument]) {
        case .failure(let error): return .cannotStart(errno: error.code)
        case .success(let pid): return Self.wait(pid, until: deadline)
        }
    }

    /// Waits for `pid` until the deadline, then leaves it to a reaper thread.
    package static func wait(_ pid: pid_t, until deadline: Deadline) -> ProcessOutcome {
        var pause: UInt32 = 1_000
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift cannot import (macros).
                let signal = status & 0x7F
                guard signal == 0 else { return .killed(signal: signal) }
                return .exited((status >> 8) & 0xFF)
            }
            if reaped < 0 {
                if systemErrno == EINTR { continue }
                return .statusUnavailable
            }
            let left = deadline.remainingMilliseconds
            if left == 0 {
                reapInBackground(pid)
                return .stillRunning
            }
            usleep(min(pause, UInt32(min(left, 1_000)) * 1_000))
            pause = min(pause * 2, 20_000)
        }
    }

    /// A start failure as an operator reads it.
    package static func describe(_ code: Int32, _ program: String) -> String {
        code == ENOENT ? "\(program) not found in an absolute PATH entry" : String(cString: strerror(code))
    }

    /// The first executable `program` in an absolute entry of $PATH (the
    /// usual default path when $PATH is unset); nil when there is none.
    package static func resolve(_ program: String, path: String?) -> String? {
        let entries = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        for entry in entries where entry.hasPrefix("/") {
            let candidate = (entry.hasSuffix("/") ? String(entry) : entry + "/") + program
            var s = stat()
            if stat(candidate, &s) == 0, vg_system_is_regular(s.st_mode) != 0, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Starts `executable` with `arguments` as its argv (the first is its
    /// name), as the type's comment says.
    package static func spawn(executable: String, _ arguments: [String]) -> Result<pid_t, ProgramStart.StartError> {
        ProgramStart(executable, arguments: arguments, flags: Int32(VG_SPAWN_NEW_SESSION)).start()
    }

    /// A detached thread that waits for `pid` alone (never `waitpid(-1)`,
    /// which would steal the host's own children). If no thread can be
    /// made, the child stays a zombie until this process ends.
    private static func reapInBackground(_ pid: pid_t) {
        _ = DetachedThread.start(stackBytes: 256 << 10) {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && systemErrno == EINTR {}
        }
    }
}
