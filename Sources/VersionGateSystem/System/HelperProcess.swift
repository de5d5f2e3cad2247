import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The helper process, as the library starts it (docs/design.md, "The
/// fetch helper"): every fetch, HTTP exchange and update in place runs in
/// it, one request each, `versiongate-helper`, found in the `versiongate`
/// directory beside the library's own file, trusted only when no other user
/// could have written it. A program of its own (VersionGateHelper): the
/// library links no libcurl and no GIO.
///
/// The request is written whole into a pipe before the helper exists, so
/// the host never writes to a pipe whose reader may be gone (no SIGPIPE to
/// mask). The helper is started detached (`vg_system_spawn`): it is
/// never the host's child, in a process group of its own that `run` kills
/// at the deadline.
package struct HelperProcess: Sendable {
    package let path: String

    /// Where the helper lives relative to the library's directory.
    package static let relativePath = "versiongate/versiongate-helper"

    /// Found once per process: where the library is does not change.
    package static let located: Result<HelperProcess, GateFailure> = locate()

    private static func locate() -> Result<HelperProcess, GateFailure> {
        guard let library = libraryPath() else {
            return .failure(GateFailure(.network, "no fetch helper: the library's own path is unknown"))
        }
        let path = parent(library) + "/" + relativePath
        if let problem = trustProblem(path) {
            return .failure(GateFailure(.network, "no fetch helper: \(problem)"))
        }
        return .success(HelperProcess(path: path))
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

    /// nil when `path` (resolved: the library's real path and a fixed
    /// relative one) may be run: a regular executable file owned by root or
    /// us, not writable by group or others, in a directory alike; else why not.
    package static func trustProblem(_ path: String) -> String? {
        var file = stat(), directory = stat()
        guard lstat(path, &file) == 0 else { return "\(path): not found" }
        guard vg_system_is_regular(file.st_mode) != 0 else { return "\(path): not a regular file" }
        guard stat(parent(path), &directory) == 0 else { return "\(parent(path)): cannot stat" }
        for (name, info) in [(path, file), (parent(path), directory)] {
            var info = info
            let problems = vg_system_trust(&info, -1, name, 1, 0)
            if problems & Int32(VG_TRUST_OWNER) != 0 { return "\(name): owned by another user" }
            if problems != 0 { return "\(name): writable by group or others" }
        }
        guard access(path, X_OK) == 0 else { return "\(path): not executable" }
        return nil
    }

    /// The one way the host asks the helper anything: finds it (trusted),
    /// sends `request` and reads what comes back until the final answer.
    /// Interim records go to `onInterim` as they arrive; when it returns
    /// false the host stops listening (nil): the helper is left to finish
    /// by itself, its writes failing quietly (killing an update's helper
    /// mid-way crashes flatpak-portal 1.14: docs/design.md, "Updating in
    /// place"). At `deadline` (nil: none) the helper's process group is
    /// killed. With `passingStdio` the host's descriptors 0-2 reach the
    /// helper as its 3-5. A failure is one of finding, starting or hearing
    /// the helper; what the helper itself could not do is its `failed` answer.
    /// The helper holds `lock` (when given) from then on: a fetch under
    /// the login burst's lock (docs/design.md, "The fetch helper").
    package static func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock?,
                             passingStdio: Bool, onInterim: (HelperAnswer.Interim) -> Bool)
        -> Result<HelperReply, GateFailure> {
        located.flatMap {
            $0.call(request, until: deadline, passingStdio: passingStdio, keeping: lock?.descriptor ?? -1,
                    onInterim: onInterim)
        }
    }

    /// Sends `request` to a helper that holds `lock` from then on, and
    /// listens until `deadline`; then stops listening and leaves the helper
    /// to finish by its own limit (a channel's answer, learned for the next
    /// launch: docs/design.md, "Asking the channel").
    package static func ask(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?)
        -> Result<HelperReply, GateFailure> {
        located.flatMap { $0.call(request, until: deadline, keeping: lock?.descriptor ?? -1, leaving: true) { _ in true } }
    }

    /// Starts `request` and returns at once, once the helper is started: a
    /// background refresh, which nobody waits for (holding `lock` when
    /// given, until it exits). The helper's pid.
    package static func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<pid_t, GateFailure> {
        located.flatMap { $0.start(request.message(), answer: -1, lowPriority: true, keeping: lock?.descriptor ?? -1) }
    }

    /// Starts a watch: the read end of its answer pipe, nonblocking (the
    /// host drains it), the helper at low priority, left to end by itself
    /// when the end is closed.
    package static func watch(_ request: HelperRequest) -> Result<Int32, GateFailure> {
        located.flatMap { helper in
            helper.startAnswering(request.message(), passingStdio: false, keeping: -1, lowPriority: true).map { started in
                _ = vg_system_fcntl(started.1, F_SETFL, O_NONBLOCK)
                return started.1
            }
        }
    }

    private func call(_ request: HelperRequest, until deadline: Deadline?, passingStdio: Bool = false,
                      keeping kept: Int32 = -1, leaving: Bool = false,
                      onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperReply, GateFailure> {
        // The helper keeps the deadline itself; a grace of 5 % (at most
        // 150 ms) lets its answer arrive: within the header's deadline + 10 %.
        // One left to finish is not waited for past the deadline.
        let deadline = deadline.map {
            Deadline(afterMilliseconds: $0.remainingMilliseconds + (leaving ? 0 : min($0.remainingMilliseconds / 20, 150)))
        }
        let pid: pid_t, answers: Int32
        switch startAnswering(request.message(), passingStdio: passingStdio, keeping: kept) {
        case .failure(let failure): return .failure(failure)
        case .success(let started): (pid, answers) = started
        }
        defer { close(answers) }
        var final = HelperMessage(), finalBytes = 0
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var ready = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let waited = poll(&ready, 1, deadline.map { Int32(clamping: $0.remainingMilliseconds) } ?? -1)
            if waited < 0 && systemErrno == EINTR { continue }
            guard waited > 0 else {
                if leaving {
                    return .failure(GateFailure(.timeout, "no answer within the deadline; the helper (pid \(pid)) "
                                                + "goes on and keeps the answer for the next launch"))
                }
                // No EOF yet: the helper holds the pipe, so it (and its group) still exists.
                kill(-pid, SIGKILL)
                return .failure(GateFailure(.timeout, "the deadline passed while the fetch helper was at work "
                                            + "(pid \(pid), killed)"))
            }
            let count = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            if count < 0 && (systemErrno == EINTR || systemErrno == EAGAIN) { continue }
            guard count > 0 else { break }
            pending += chunk[..<count]
            while let end = pending.firstIndex(of: 0) {
                let record = HelperMessage.decode(Array(pending[...end]))?.records.first
                pending.removeSubrange(...end)
                guard let record else { continue }
                if let interim = HelperAnswer.Interim(record) {
                    guard onInterim(interim) else { return .success(HelperReply(nil)) }
                } else {
                    final.add(record.name, record.value)
                    finalBytes += record.name.utf8.count + record.value.utf8.count + 2
                }
            }
            guard pending.count + finalBytes <= HelperMessage.maxBytes else {
                kill(-pid, SIGKILL)
                return .failure(GateFailure(.internalError, "the helper sent an answer over \(HelperMessage.maxBytes) bytes"))
            }
        }
        switch HelperReply(final) {
        case let answer?: return .success(answer)
        case nil:
            return .failure(GateFailure(.internalError, "the helper \(path) gave no answer "
                                        + "(\(final.records.count) records; did it die?)"))
        }
    }

    /// Starts `request` with a pipe for its answer: the helper's pid and
    /// the pipe's read end, which the caller closes.
    private func startAnswering(_ request: HelperMessage, passingStdio: Bool, keeping kept: Int32,
                                lowPriority: Bool = false) -> Result<(pid_t, Int32), GateFailure> {
        var answerPipe: [Int32] = [-1, -1]
        guard vg_system_pipe(&answerPipe, O_CLOEXEC) == 0 else { return .failure(failure("no pipe", errno: systemErrno)) }
        let started = start(request, answer: answerPipe[1], lowPriority: lowPriority, passingStdio: passingStdio, keeping: kept)
        close(answerPipe[1])
        if case .failure = started { close(answerPipe[0]) }
        return started.map { ($0, answerPipe[0]) }
    }

    private func start(_ request: HelperMessage, answer: Int32, lowPriority: Bool,
                       passingStdio: Bool = false, keeping kept: Int32 = -1) -> Result<pid_t, GateFailure> {
        var requestPipe: [Int32] = [-1, -1]
        guard vg_system_pipe(&requestPipe, O_CLOEXEC | O_NONBLOCK) == 0 else {
            return .failure(failure("no pipe", errno: systemErrno))
        }
        defer { close(requestPipe[0]) }
        // Only our end never blocks. The helper's reads block: a program
        // another thread is starting at this moment holds a copy of this
        // pipe's write end until its exec, and a nonblocking read would
        // take that for a request cut short.
        _ = vg_system_fcntl(requestPipe[0], F_SETFL, 0)
        let bytes = request.encoded()
        // A pipe holds 64 KiB (one page when the user's pipe quota is spent):
        // more is asked for when the request needs it.
        if bytes.count > 4096 { _ = vg_system_fcntl(requestPipe[1], Self.setPipeSize, Int32(clamping: bytes.count)) }
        let written = bytes.withUnsafeBytes { write(requestPipe[1], $0.baseAddress, $0.count) }
        close(requestPipe[1])
        guard written == bytes.count else {
            return .failure(GateFailure(.internalError, "the request to the fetch helper (\(bytes.count) bytes) "
                                        + "does not fit in a pipe"))
        }
        let flags = VG_SPAWN_NEW_SESSION | VG_SPAWN_DETACHED | (lowPriority ? VG_SPAWN_LOW_PRIORITY : 0)
            | (passingStdio ? VG_SPAWN_PASS_STDIO : 0)
        var start = ProgramStart(path, arguments: ["versiongate-helper"], flags: Int32(flags))
        (start.input, start.output, start.kept) = (requestPipe[0], answer, kept)
        return start.start().mapError { failure("cannot start \(path)", errno: $0.code) }
    }

    /// F_SETPIPE_SZ (Linux-specific; the header hides it from Swift).
    private static let setPipeSize: Int32 = 1024 + 7

    private func failure(_ what: String, errno code: Int32) -> GateFailure {
        GateFailure(.network, "fetch helper: \(what): \(String(cString: strerror(code)))")
    }
}
