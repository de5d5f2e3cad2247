import VersionGateCore
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The FileSystem of the real machine. Reads open non-blocking and check
/// the descriptor (only a regular file is read: a FIFO or device would block
/// or never end) and read at most `maxBytes` + 1 bytes; writes go to a temp
/// file renamed over the target, so a reader sees the old file or the new
/// one, never half of one.
package struct POSIXFiles: FileSystem {
    package init() {}

    package func identity(of path: String) -> FileIdentity? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return Self.identity(s)
    }

    package func read(_ path: String, maxBytes: Int) throws(GateFailure) -> (bytes: [UInt8], identity: FileIdentity) {
        let fd = vg_system_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0)
        guard fd >= 0 else { throw .config("cannot open \(path): \(Self.systemError())") }
        defer { close(fd) }

        var s = stat()
        guard fstat(fd, &s) == 0 else { throw .config("cannot stat \(path): \(Self.systemError())") }
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
                throw .config("cannot read \(path): \(Self.systemError())")
            }
            filled += n
        }
        guard filled <= maxBytes else { throw .config("\(path) is over the \(maxBytes)-byte limit") }
        bytes.removeSubrange(filled...)
        return (bytes, Self.identity(s))
    }

    package func replace(_ path: String, with bytes: [UInt8], durable: Bool) -> Bool {
        let directory = Self.parent(of: path)
        var template: [CChar] = []
        func makeTemporary() -> Int32 {
            template = Array((directory + "/." + Self.name(of: path) + ".XXXXXX").utf8CString)
            return template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        }
        // The directories usually exist: create them only when missing.
        var fd = makeTemporary()
        if fd < 0 && systemErrno == ENOENT && Self.makeDirectories(directory) { fd = makeTemporary() }
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
        guard complete, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    package func remove(_ path: String) { unlink(path) }

    package func createExclusively(_ path: String) -> ExclusiveCreation {
        let directory = Self.parent(of: path)
        if mkdir(directory, 0o700) != 0 && systemErrno != EEXIST { return .failed }
        let fd = vg_system_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return .created
        }
        return systemErrno == EEXIST ? .alreadyThere : .failed
    }

    package func isRecentlyChanged(_ identity: FileIdentity) -> Bool {
        // File timestamps are the real clock's, whatever clock a test gives a client.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) &- identity.modifiedSeconds < 2 || Int64(now.tv_sec) &- identity.changedSeconds < 2
    }

    private static func identity(_ s: stat) -> FileIdentity {
        FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int64(s.st_size),
                     modifiedSeconds: Int64(s.st_mtim.tv_sec), modifiedNanoseconds: Int64(s.st_mtim.tv_nsec),
                     changedSeconds: Int64(s.st_ctim.tv_sec), changedNanoseconds: Int64(s.st_ctim.tv_nsec))
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

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

    private static func systemError() -> String {
        String(cString: strerror(systemErrno))
    }
}
