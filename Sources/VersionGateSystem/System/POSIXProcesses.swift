import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The ProcessLauncher of the real machine: posix_spawn of the program found
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
        guard let executable = Self.resolve(program, path: getenv("PATH").flatMap { String(validatingCString: $0) }) else {
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
    /// name), as the type's comment says: new session, /dev/null stdio, no
    /// other descriptor of ours, default signals, empty mask.
    package static func spawn(executable: String, _ arguments: [String]) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return .failure(SpawnError(code: ENOMEM)) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { return .failure(SpawnError(code: ENOMEM)) }
        defer { posix_spawnattr_destroy(&attributes) }

        // Our descriptors are not the child's business: a browser started by
        // xdg-open could otherwise hold the host's pipes and sockets open.
        guard closeDescriptors(from: 3, &actions),
              posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0,
              posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) == 0,
              posix_spawn_file_actions_adddup2(&actions, 1, 2) == 0 else { return .failure(SpawnError(code: ENOMEM)) }

        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        let flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF) | Self.spawnSetSID
        guard posix_spawnattr_setsigmask(&attributes, &noSignals) == 0,
              posix_spawnattr_setsigdefault(&attributes, &allSignals) == 0,
              posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags)) == 0 else {
            return .failure(SpawnError(code: EINVAL))
        }

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard argv.dropLast().allSatisfy({ $0 != nil }) else { return .failure(SpawnError(code: ENOMEM)) }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, vg_system_environ())
        return status == 0 ? .success(pid) : .failure(SpawnError(code: status))
    }

    package struct SpawnError: Error { package let code: Int32 }

    /// POSIX_SPAWN_SETSID (glibc ≥ 2.26; the header hides it from Swift):
    /// the child leaves our session and process group, so the terminal's
    /// Ctrl-C or hang-up meant for the launcher does not reach the browser.
    private static let spawnSetSID: Int32 = 0x80

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// posix_spawn_file_actions_addclosefrom_np (glibc ≥ 2.34, also hidden
    /// from Swift), else a close action for each inheritable descriptor
    /// listed in /proc/self/fd (one opened meanwhile by another thread may
    /// then slip through).
    private static func closeDescriptors(from lowest: Int32,
                                         _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Bool {
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            return unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, lowest) == 0
        }
        guard let directory = opendir("/proc/self/fd") else { return true }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(decimal: name), fd >= lowest, fd != dirfd(directory) else { continue }
            let flags = vg_system_fcntl(fd, F_GETFD, 0)
            if flags >= 0 && flags & FD_CLOEXEC == 0 && posix_spawn_file_actions_addclose(actions, fd) != 0 {
                return false
            }
        }
        return true
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

private extension Int32 {
    /// ASCII digits only, no sign (Int32("+1") would be 1).
    init?(decimal text: String) {
        guard let wide = Int64(decimal: text), let narrow = Int32(exactly: wide) else { return nil }
        self = narrow
    }
}
