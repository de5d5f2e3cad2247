import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// Reads a local gate document without ever hanging or ballooning: only a
/// regular file is read (a FIFO or device would block or never end), opened
/// non-blocking, and at most `maxBytes` + 1 bytes are read.
package enum DocumentFile {
    /// What identifies a version of the file's contents, to reuse a parse.
    package struct Identity: Equatable, Sendable {
        package var device: UInt64, inode: UInt64, size: Int64
        package var modified: timespec, changed: timespec

        package static func == (a: Identity, b: Identity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        package init(_ s: stat) {
            device = UInt64(s.st_dev); inode = UInt64(s.st_ino); size = Int64(s.st_size)
            modified = s.st_mtim; changed = s.st_ctim
        }
    }

    package static func identity(of path: String) -> Identity? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return Identity(s)
    }

    package static func read(_ path: String, maxBytes: Int) throws(GateFailure) -> (bytes: [UInt8], identity: Identity) {
        let fd = vg_system_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0)
        guard fd >= 0 else { throw .config("cannot open \(path): \(systemError())") }
        defer { close(fd) }

        var s = stat()
        guard fstat(fd, &s) == 0 else { throw .config("cannot stat \(path): \(systemError())") }
        guard vg_system_is_regular(s.st_mode) != 0 else { throw .config("\(path) is not a regular file") }
        guard s.st_size <= maxBytes else {
            throw .config("\(path) is \(s.st_size) bytes, over the \(maxBytes)-byte limit")
        }

        // Read to EOF but never past the cap: the file may grow while we read.
        var bytes = [UInt8](repeating: 0, count: min(Int(s.st_size), maxBytes) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= maxBytes else { break }
                bytes += repeatElement(0, count: min(bytes.count, maxBytes + 1 - bytes.count))
            }
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if n == 0 { break }
            if n < 0 {
                if systemErrno == EINTR { continue }
                throw .config("cannot read \(path): \(systemError())")
            }
            filled += n
        }
        guard filled <= maxBytes else { throw .config("\(path) is over the \(maxBytes)-byte limit") }
        bytes.removeSubrange(filled...)
        return (bytes, Identity(s))
    }

    private static func systemError() -> String {
        String(cString: strerror(systemErrno))
    }

    /// Whether the file changed so recently that a second write could still
    /// land with the same timestamps (their granularity can be a second or
    /// more), so a parse of it must not be trusted to stay current.
    package static func isRecentlyChanged(_ identity: Identity) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now.tv_sec &- identity.modified.tv_sec < 2 || now.tv_sec &- identity.changed.tv_sec < 2
    }
}
