import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// What starts the refresh of a stale cache behind a check that answered
/// from it (docs/design.md, "The background refresh"). Behind a protocol so
/// tests can see what would start; the production one is `LiveRefresher`.
package protocol BackgroundRefresher: Sendable {
    /// Starts the refresh: for `.process` a detached `versiongate refresh`
    /// with `assignments` (the client's options, `key=value`) and the
    /// checked version, else (or when that command cannot be used)
    /// `inThread` on a detached thread. What was started, for the log; nil
    /// when nothing could be.
    func start(_ mode: ClientOptions.BackgroundRefresh, assignments: [String], version: String?,
               inThread: @escaping @Sendable () -> Void) -> String?
}

/// The background refresh's limits.
package enum RefreshLimits {
    /// The refresher's own deadline, every request included: it keeps no
    /// launcher waiting, so it may wait longer than `timeout_ms`.
    package static let deadlineMilliseconds = 30_000
    /// A "refresh pending" marker older than this was left by a refresher
    /// that died; the next check replaces it.
    package static let markerLifetimeSeconds: Int64 = 60
}

package struct LiveRefresher: BackgroundRefresher {
    package init() {}

    package func start(_ mode: ClientOptions.BackgroundRefresh, assignments: [String], version: String?,
                       inThread: @escaping @Sendable () -> Void) -> String? {
        var why = "background_refresh=thread"
        if mode == .process {
            switch RefreshCommand.located {
            case .failure(let problem):
                why = problem.text
            case .success(let command):
                switch command.startDetached(assignments, version: version) {
                case .success(let description): return description
                case .failure(let problem): why = problem.text
                }
            }
        }
        return DetachedThread.start(inThread) ? "in a thread (\(why))" : nil
    }
}

/// `versiongate refresh --detach`: the command beside the library (a
/// library in DIR/lib uses DIR/bin/versiongate; in a multiarch
/// DIR/lib/TRIPLET, DIR/bin/versiongate too), trusted only when nothing
/// another user could have written: a regular executable file owned by
/// root or us, not writable by group or others, in a directory alike.
package struct RefreshCommand: Sendable {
    package let path: String

    /// Found once per process: where the library is does not change.
    package static let located: Result<RefreshCommand, RefreshProblem> = locate()

    private static func locate() -> Result<RefreshCommand, RefreshProblem> {
        guard let library = libraryPath() else { return .failure(RefreshProblem("the library's own path is unknown")) }
        let directory = parent(library)
        var candidates = [parent(directory) + "/bin/versiongate"]
        if parent(directory).hasSuffix("/lib") { candidates.append(parent(parent(directory)) + "/bin/versiongate") }
        var problems: [String] = []
        for candidate in candidates {
            switch trustProblem(candidate) {
            case nil: return .success(RefreshCommand(path: candidate))
            case let problem?: problems.append(problem)
            }
        }
        return .failure(RefreshProblem(problems.joined(separator: "; ")))
    }

    /// The library's file, symlinks resolved (dladdr on a function of ours).
    private static func libraryPath() -> String? {
        var name = [CChar](repeating: 0, count: 4096)
        guard vg_system_library_path(&name, name.count) == 0, let resolved = realpath(name, nil) else { return nil }
        defer { free(resolved) }
        return String(validatingCString: resolved)
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// nil when `path` may be run; else why not.
    package static func trustProblem(_ path: String) -> String? {
        var file = stat(), directory = stat()
        guard lstat(path, &file) == 0 else { return "\(path): not found" }
        guard vg_system_is_regular(file.st_mode) != 0 else { return "\(path): not a regular file" }
        guard stat(parent(path), &directory) == 0 else { return "\(parent(path)): cannot stat" }
        let us = geteuid()
        for (name, info) in [(path, file), (parent(path), directory)] {
            guard info.st_uid == 0 || info.st_uid == us else { return "\(name): owned by another user" }
            guard info.st_mode & 0o022 == 0 else { return "\(name): writable by group or others" }
        }
        guard access(path, X_OK) == 0 else { return "\(path): not executable" }
        return nil
    }

    /// Spawns `versiongate refresh --detach --set K=V…`, which forks the
    /// refresher and exits at once; that first child is waited for here
    /// (briefly), so no zombie is left to the host.
    func startDetached(_ assignments: [String], version: String?) -> Result<String, RefreshProblem> {
        let argv = [path, "refresh", "--detach"] + assignments.flatMap { ["--set", $0] }
            + (version.map { ["--version", $0] } ?? [])
        let pid: pid_t
        switch POSIXProcesses.spawn(executable: path, argv) {
        case .failure(let error): return .failure(RefreshProblem("\(path): \(String(cString: strerror(error.code)))"))
        case .success(let child): pid = child
        }
        switch POSIXProcesses.wait(pid, until: Deadline(afterMilliseconds: 2_000)) {
        case .exited(0), .statusUnavailable:
            // statusUnavailable: a host that ignores SIGCHLD (or reaps every
            // child itself) collected it; the refresher runs all the same.
            return .success("a detached process (\(path) refresh, started as pid \(pid))")
        case .exited(let code): return .failure(RefreshProblem("\(path) refresh exited with \(code)"))
        case .killed(let signal): return .failure(RefreshProblem("\(path) refresh was killed by signal \(signal)"))
        case .stillRunning: return .success("a detached process (\(path) refresh, pid \(pid), slow to detach)")
        case .cannotStart(let code): return .failure(RefreshProblem("\(path): \(String(cString: strerror(code)))"))
        }
    }
}

/// Why the refresher's command cannot be used, for the log.
package struct RefreshProblem: Error, Sendable {
    package let text: String
    init(_ text: String) { self.text = text }
}
