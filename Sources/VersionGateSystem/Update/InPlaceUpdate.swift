import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// Updating a Flatpak app in place, the host's side (docs/design.md,
/// "Updating in place"): the helper talks to the portal and streams its
/// progress back; the host never loads GIO nor holds the bus.
package enum InPlaceUpdate {
    private static let flatpakInfo = Sandbox.flatpakInfo
    /// The longest an update may run before the helper gives up on it.
    package static let maxSeconds = 3600

    package struct Progress: Sendable, Equatable {
        /// Operation `op` (from 0) of `count`, `percent` of it done.
        package let op: Int, count: Int, percent: Int

        package init(op: Int, count: Int, percent: Int) { (self.op, self.count, self.percent) = (op, count, percent) }

    }

    package struct Report: Sendable {
        package let outcome: UpdateOutcome
        /// Why, for every outcome but `installed`.
        package let message: String

        package init(_ outcome: UpdateOutcome, _ message: String) { (self.outcome, self.message) = (outcome, message) }
    }

    /// Inside a Flatpak sandbox: the file the portal itself reads to know
    /// the app (FLATPAK_ID, which Sandbox.detect also takes, is only a hint).
    /// Read once: a process does not enter or leave its sandbox.
    package static let isFlatpak = POSIXFiles().identity(of: flatpakInfo) != nil

    /// The commit this sandbox runs (`app-commit` in /.flatpak-info), if known.
    package static var runningCommit: String? {
        guard let bytes = readSmall(flatpakInfo) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("app-commit=") {
            return String(line.dropFirst("app-commit=".count))
        }
        return nil
    }

    /// Updates this app through the helper. `onProgress` is called on this
    /// thread for each step; returning false cancels: this call returns at
    /// once, and the portal may still finish installing in the background
    /// (its helper is left to see it through; see HelperProcess.call).
    package static func run(onProgress: (Progress) -> Bool) -> Report {
        guard isFlatpak else {
            return Report(.notFlatpak, "not inside a Flatpak (\(flatpakInfo) is missing): update from the store")
        }
        if case .failure(let failure) = HelperProcess.located { return Report(.unavailable, failure.message) }
        let ran = HelperProcess.call(.update(maxSeconds: maxSeconds),
                                     until: Deadline(afterMilliseconds: (maxSeconds + 60) * 1000)) {
            if case .progress(let progress) = $0 { return onProgress(progress) }
            return true
        }
        switch ran {
        case .failure(let failure): return Report(.failed, failure.message)
        case .success(nil):
            return Report(.cancelled, "cancelled by the host (the portal may still finish installing the update)")
        case .success(.updated(let outcome, let message)?): return Report(outcome, message)
        case .success(.failed(let failure)?): return Report(.failed, failure.message)
        case .success(let other?): return Report(.failed, "the helper answered an update with \(other)")
        }
    }

    /// Starts the newest installed version of this app with `arguments` in
    /// `directory`, with this process's descriptors 0-2. With `wait`, waits
    /// for it to end and gives its exit status; else nil once it started.
    package static func restart(arguments: [String], directory: String, wait: Bool) -> Result<Int32?, GateFailure> {
        guard isFlatpak else { return .failure(GateFailure(.update, "not inside a Flatpak: nothing to restart into")) }
        guard !arguments.isEmpty else { return .failure(.invalidArgument("no command to restart")) }
        let request = HelperRequest.Restart(directory: directory, wait: wait, arguments: arguments)
        switch HelperProcess.call(.restart(request), until: nil, passingStdio: true) {
        case .failure(let failure): return .failure(GateFailure(.update, failure.message))
        case .success(.restarted(let status)?): return .success(status)
        case .success(.failed(let failure)?): return .failure(GateFailure(.update, failure.message))
        case .success(let other): return .failure(GateFailure(.update, "the helper answered a restart with \(String(describing: other))"))
        }
    }

    /// This process's own command line, with the program as its full path
    /// (/proc/self/exe): what a restart runs when the host gives none.
    package static var ownArguments: [String]? {
        guard let bytes = readSmall("/proc/self/cmdline"), let executable = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(executable) }
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if arguments.last == "" { arguments.removeLast() }
        guard !arguments.isEmpty else { return nil }
        arguments[0] = String(cString: executable)
        return arguments
    }

    package static var currentDirectory: String? {
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return String(validatingCString: directory)
    }

    /// A file the kernel or bubblewrap made, at most 1 MiB.
    private static func readSmall(_ path: String) -> [UInt8]? {
        let fd = vg_system_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readToEnd(fd, maxBytes: 1 << 20)
    }
}
