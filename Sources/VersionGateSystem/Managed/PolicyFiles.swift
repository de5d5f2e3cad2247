import VersionGateCore
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// What root's policy files say on this machine (docs/design.md, "The
/// administrator's policy"): `/etc/versiongate/policy.json`, then
/// `policy.d/*.json` in name order. Fixed paths: no option or variable
/// moves them, so no user can bring a policy of their own.
package struct PolicyReading: Sendable {
    package var policy = AdministratorPolicy()
    /// Files ignored as a whole, and why.
    package var ignored: [(file: String, why: String)] = []
    /// Keys dropped from files that counted, and why ("FILE: why").
    package var dropped: [String] = []
    /// Keys this library does not know ("FILE: unknown key "KEY"").
    package var unknown: [String] = []

    /// What the log and the command's stderr say, once per client.
    package var warnings: [String] {
        ignored.map { "policy: \($0.file) ignored: \($0.why)" } + dropped.map { "policy: " + $0 }
    }

    /// What `versiongate policy --check` reports beside the effective policy.
    package var problems: [String] {
        ignored.map { "\($0.file): ignored: \($0.why)" } + dropped + unknown
    }
}

package enum PolicyFiles {
    /// Read now from `directory` (the System's: /etc/versiongate), the files
    /// trusted one by one; never fails (nothing there is no policy).
    package static func read(directory: String, files: any FileSystem) -> PolicyReading {
        var reading = PolicyReading()
        for file in [directory + "/policy.json"] + dropIns(directory + "/policy.d", files) {
            switch load(file) {
            case nil: continue   // absent
            case .failure(let refusal)?: reading.ignored.append((file, refusal.reason))
            case .success(let layer)?:
                reading.policy.add(layer)
                reading.dropped += layer.dropped.map { "\(file): \($0)" }
                reading.unknown += layer.unknownKeys.map { "\(file): unknown key \"\($0)\"" }
            }
        }
        return reading
    }

    /// `policy.d/*.json` in byte order of their names (no hidden files).
    private static func dropIns(_ directory: String, _ files: any FileSystem) -> [String] {
        let names = files.names(in: directory).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { directory + "/" + $0 }
    }

    /// The file's layer; nil when it does not exist.
    private static func load(_ path: String) -> Result<PolicyLayer, PolicyLayer.Refusal>? {
        let fd = vg_system_open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0)
        guard fd >= 0 else {
            if systemErrno == ENOENT { return nil }
            if systemErrno == ELOOP { return .failure(.init("not a regular file: a symbolic link")) }
            return .failure(.init("cannot be opened: \(String(cString: strerror(systemErrno)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, vg_system_is_regular(info.st_mode) != 0 else { return .failure(.init("not a regular file")) }
        if let why = trustProblem(info, what: nil) { return .failure(.init(why)) }
        if let why = directoriesProblem(above: path) { return .failure(.init(why)) }
        guard info.st_size <= PolicyLayer.maxBytes else { return .failure(.init("larger than \(PolicyLayer.maxBytes) bytes")) }
        var bytes = [UInt8](repeating: 0, count: PolicyLayer.maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        return PolicyLayer.parse(Array(bytes.prefix(count)), file: path)
    }

    /// Every directory above `path`, symbolic links resolved: root's, and
    /// writable by no one else.
    private static func directoriesProblem(above path: String) -> String? {
        guard let slash = path.lastIndex(of: "/"), let resolved = realpath(String(path[..<slash]), nil) else {
            return "its directory cannot be resolved"
        }
        var directory = String(cString: resolved)
        free(resolved)
        while true {
            var info = stat()
            guard stat(directory, &info) == 0 else { return "directory \(directory) cannot be read" }
            if let why = trustProblem(info, what: "directory \(directory)") { return why }
            guard directory != "/", let up = directory.lastIndex(of: "/") else { return nil }
            directory = up == directory.startIndex ? "/" : String(directory[..<up])
        }
    }

    /// Stricter than a document's rule: root's, no group or other write bit.
    private static func trustProblem(_ info: stat, what: String?) -> String? {
        let prefix = what.map { $0 + " is " } ?? ""
        if info.st_uid != 0 { return "\(prefix)owned by uid \(info.st_uid), not root" }
        if info.st_mode & 0o022 != 0 {
            return "\(prefix)writable by group or others (mode 0\(String(info.st_mode & 0o777, radix: 8)))"
        }
        return nil
    }
}
