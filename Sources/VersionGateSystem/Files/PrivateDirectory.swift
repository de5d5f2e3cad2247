import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// A private directory of small files we own (`…/versiongate`, mode 0700):
/// written atomically (temp file + rename, so a reader sees the old file or
/// the new one, never half of one) and read defensively (regular files only,
/// non-blocking, bounded), so a corrupt, huge, FIFO or symlinked file is
/// rejected instead of trusted or waited on.
package struct PrivateDirectory: Sendable {
    package let path: String

    /// nil when there is no base directory. Nothing is created until a write.
    package init?(base: String?) {
        guard let base else { return nil }
        path = base + "/versiongate"
    }

    package func filePath(_ name: String) -> String { path + "/" + name }

    /// The file's bytes, or nil when it is missing, not a regular file, over
    /// `maxBytes` or unreadable.
    package func read(_ name: String, maxBytes: Int) -> [UInt8]? {
        try? DocumentFile.read(filePath(name), maxBytes: maxBytes).bytes
    }

    /// Replaces `name` with `bytes` atomically; false when it could not.
    /// `durable` adds an fsync before the rename, for state whose loss
    /// matters (the Firebase installation); a cache can be re-fetched, and
    /// the fsync costs more than the fetch on a loopback server.
    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8], durable: Bool = false) -> Bool {
        var template: [CChar] = []
        func makeTemporary() -> Int32 {
            template = Array(filePath(".\(name).XXXXXX").utf8CString)
            return template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        }
        // The directories usually exist: create them only when missing.
        var fd = makeTemporary()
        if fd < 0 && systemErrno == ENOENT && Self.makeDirectories(path) { fd = makeTemporary() }
        guard fd >= 0 else { return false }
        _ = vg_system_fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        let complete = written == bytes.count && (!durable || fsync(fd) == 0)
        close(fd)
        guard complete, rename(temporary, filePath(name)) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    package func remove(_ name: String) { unlink(filePath(name)) }

    /// mkdir -p with mode 0700 for what we create.
    private static func makeDirectories(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && systemErrno != EEXIST { return false }
        }
        var s = stat()
        return stat(path, &s) == 0 && vg_system_is_directory(s.st_mode) != 0 && access(path, W_OK) == 0
    }
}
