import VersionGateCore
import VersionGateWire
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The FileSystem of the real machine, with OpenSSH's StrictModes in mind:
/// a private file is reached through its directory's descriptor (opened
/// with O_DIRECTORY | O_NOFOLLOW and checked: the user's, writable by no
/// one else), then `openat(O_NOFOLLOW)` and checked again on the open
/// descriptor, so neither a planted symlink nor a swap between check and
/// use can hand us another user's file. Reads open non-blocking and read
/// only a regular file, at most `maxBytes` + 1 bytes; writes go to a temp
/// file renamed over the target, so a reader sees the old file or the new
/// one, never half of one.
package struct POSIXFiles: FileSystem {
    package init() {}

    package func identity(of path: String) -> FileIdentity? {
        var s = stat()
        // withCString: a String passed as a C pointer argument is copied
        // into a fresh array at every call; this borrows its bytes.
        guard path.withCString({ stat($0, &s) }) == 0 else { return nil }
        return Self.identity(s)
    }

    package func readIfPresent(_ path: String, maxBytes: Int, trust: FileTrust) throws(GateFailure)
        -> (bytes: [UInt8], identity: FileIdentity)? {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let fd: Int32
        switch trust {
        case .document:
            fd = vg_system_open(path, flags, 0)
        case .private:
            guard let directory = try Self.existingPrivateDirectory(Self.parent(of: path)) else { return nil }
            defer { close(directory) }
            fd = vg_system_openat(directory, Self.name(of: path), flags | O_NOFOLLOW, 0)
        }
        // A cache's usual miss: no failure text built (a warm check may ask).
        if fd < 0 && systemErrno == ENOENT { return nil }
        guard fd >= 0 else { throw .config("cannot open \(path): \(Self.systemError())") }
        defer { close(fd) }

        var s = stat()
        guard fstat(fd, &s) == 0 else { throw .config("cannot stat \(path): \(Self.systemError())") }
        guard vg_system_is_regular(s.st_mode) != 0 else { throw .config("\(path) is not a regular file") }
        if let why = Self.ownershipProblem(s, fd, trust) { throw .config("\(path) \(why); refused") }
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
        guard let directory = try? Self.privateDirectory(Self.parent(of: path), create: true) else { return false }
        defer { close(directory) }
        let name = Self.name(of: path)
        guard let (fd, temporary) = Self.makeTemporary(in: directory, for: name) else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        let complete = written == bytes.count && (!durable || fsync(fd) == 0)
        close(fd)
        guard complete, renameat(directory, temporary, directory, name) == 0 else {
            unlinkat(directory, temporary, 0)
            return false
        }
        Self.removeDebris(in: directory, of: name)
        return true
    }

    package func remove(_ path: String) {
        guard let directory = try? Self.privateDirectory(Self.parent(of: path), create: false) else { return }
        unlinkat(directory, Self.name(of: path), 0)
        close(directory)
    }

    package func rename(_ path: String, to newName: String) -> Bool {
        guard let directory = try? Self.privateDirectory(Self.parent(of: path), create: false) else { return false }
        defer { close(directory) }
        return renameat(directory, Self.name(of: path), directory, newName) == 0
    }

    package func createExclusively(_ path: String) -> ExclusiveCreation {
        let directory: Int32
        do {
            directory = try Self.privateDirectory(Self.parent(of: path), create: true)
        } catch {
            return .failed(error.message)
        }
        defer { close(directory) }
        let fd = vg_system_openat(directory, Self.name(of: path),
                                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return .created
        }
        return systemErrno == EEXIST ? .alreadyThere : .failed("cannot create \(path): \(Self.systemError())")
    }

    package func lock(_ path: String, until deadline: Deadline) -> LockAttempt {
        guard let directory = try? Self.privateDirectory(Self.parent(of: path), create: true) else { return .unavailable }
        let fd = vg_system_openat(directory, Self.name(of: path), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        close(directory)
        guard fd >= 0 else { return .unavailable }
        var s = stat()
        guard fstat(fd, &s) == 0, vg_system_is_regular(s.st_mode) != 0, Self.ownershipProblem(s, fd, .private) == nil else {
            close(fd)
            return .unavailable
        }
        // Polled, not blocking: a holder that is stopped must not hold us past the deadline.
        var pause: UInt32 = 500
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let left = deadline.remainingMilliseconds
            guard left > 0, systemErrno == EWOULDBLOCK || systemErrno == EINTR else {
                let busy = systemErrno == EWOULDBLOCK || systemErrno == EINTR
                close(fd)
                return busy ? .busy : .unavailable
            }
            usleep(min(pause, UInt32(min(left, 1000)) * 1000))
            pause = min(pause * 2, 10_000)
        }
        return .acquired(FileLock(descriptor: fd) { close(fd) })
    }

    package func privateBaseProblem(_ path: String) -> String? {
        var s = stat()
        guard stat(path, &s) == 0 else { return "\(path): \(Self.systemError())" }
        guard vg_system_is_directory(s.st_mode) != 0 else { return "\(path) is not a directory" }
        if s.st_uid != geteuid() { return "\(path) is owned by uid \(s.st_uid), not this user" }
        if s.st_mode & 0o077 != 0 { return "\(path) has mode \(Self.octal(s.st_mode & 0o777)), not 0700" }
        return nil
    }

    package func names(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = directoryEntryName(entry)
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    package func isRecentlyChanged(_ identity: FileIdentity) -> Bool {
        // File timestamps are the real clock's, whatever clock a test gives a client.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) &- identity.modifiedSeconds < 2 || Int64(now.tv_sec) &- identity.changedSeconds < 2
    }

    // MARK: - the rules

    /// Why `s` (of the file open on `fd`) may not be used under `trust`; nil
    /// when it may. The one trust rule (vg_system_trust): a document may be
    /// root's (inside a Flatpak, its deploy directories' too) and shared by
    /// a group; a private file is in the user's own 0700 directory, where no
    /// group member reaches it.
    private static func ownershipProblem(_ s: stat, _ fd: Int32, _ trust: FileTrust) -> String? {
        var s = s
        let problems = vg_system_trust(&s, fd, nil, trust == .document ? 1 : 0, 1)
        guard problems != 0 else { return nil }
        if problems & Int32(VG_TRUST_OTHERS_WRITE) != 0 { return "is writable by every user" }
        return trust == .document ? "is owned by uid \(s.st_uid), neither root nor this user"
            : "is owned by uid \(s.st_uid), not this user"
    }

    /// The library's own directory (`…/versiongate`), opened without
    /// following a symlink and checked: the user's, no write for group or
    /// others. `create` makes it (and missing parents) 0700 first.
    private static func privateDirectory(_ path: String, create: Bool) throws(GateFailure) -> Int32 {
        if let fd = try existingPrivateDirectory(path) { return fd }
        guard create else { throw .config("\(path) does not exist") }
        _ = makeDirectories(parent(of: path))
        if mkdir(path, 0o700) != 0 && systemErrno != EEXIST {
            throw .config("cannot create \(path): \(systemError())")
        }
        return try checkedPrivateDirectory(vg_system_open(path, privateDirectoryFlags, 0), path)
    }

    /// The private directory at `path`, opened and checked; nil when nothing is there.
    private static func existingPrivateDirectory(_ path: String) throws(GateFailure) -> Int32? {
        let fd = vg_system_open(path, privateDirectoryFlags, 0)
        if fd < 0 && systemErrno == ENOENT { return nil }
        return try checkedPrivateDirectory(fd, path)
    }

    private static let privateDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// `fd` (an open of `path`, or -1 with errno set) when it is a directory
    /// the user owns that no one else may write; else it is closed, and why not.
    private static func checkedPrivateDirectory(_ fd: Int32, _ path: String) throws(GateFailure) -> Int32 {
        guard fd >= 0 else {
            let why = systemErrno == ELOOP || systemErrno == ENOTDIR ? "is a symlink or not a directory"
                : systemError()
            throw .config("\(path) \(why); refused")
        }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            close(fd)
            throw .config("cannot stat \(path): \(systemError())")
        }
        let problems = vg_system_trust(&s, -1, nil, 0, 0)
        guard problems != 0 else { return fd }
        close(fd)
        if problems & Int32(VG_TRUST_OWNER) != 0 {
            throw .config("\(path) is owned by uid \(s.st_uid), not this user; refused")
        }
        throw .config("\(path) is writable by group or others (mode \(octal(s.st_mode & 0o777))); refused")
    }

    /// A new 0600 file next to `name`, never through a symlink; nil when
    /// none could be made.
    private static func makeTemporary(in directory: Int32, for name: String) -> (Int32, String)? {
        var random = SystemRandom()
        for _ in 0..<8 {
            let suffix = String(UInt64.random(in: .min ... .max, using: &random), radix: 36)
            let temporary = "." + name + "." + suffix
            let fd = vg_system_openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, temporary) }
            if systemErrno != EEXIST { return nil }
        }
        return nil
    }

    /// Temp files of `name` that a writer killed between create and rename
    /// left behind, removed once they are old enough that no live writer can
    /// still be filling them: debris never piles up.
    private static func removeDebris(in directory: Int32, of name: String) {
        let copy = dup(directory)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return
        }
        defer { closedir(stream) }
        let prefix = "." + name + "."
        // "Now" as the file system saw it: the file just renamed into place.
        var written = stat()
        guard fstatat(directory, name, &written, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        let now = Int64(written.st_mtim.tv_sec)
        while let entry = readdir(stream) {
            let entryName = directoryEntryName(entry)
            guard entryName.hasPrefix(prefix) else { continue }
            var s = stat()
            guard fstatat(directory, entryName, &s, AT_SYMLINK_NOFOLLOW) == 0, s.st_uid == geteuid(),
                  now &- Int64(s.st_mtim.tv_sec) > debrisAgeSeconds else { continue }
            unlinkat(directory, entryName, 0)
        }
    }

    /// Longer than any write takes.
    private static let debrisAgeSeconds: Int64 = 10

    /// mkdir -p with mode 0700 for what we create.
    private static func makeDirectories(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && systemErrno != EEXIST { return false }
        }
        return true
    }

    private static func identity(_ s: stat) -> FileIdentity {
        FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int64(s.st_size),
                     modifiedSeconds: Int64(s.st_mtim.tv_sec), modifiedNanoseconds: Int64(s.st_mtim.tv_nsec),
                     changedSeconds: Int64(s.st_ctim.tv_sec), changedNanoseconds: Int64(s.st_ctim.tv_nsec))
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func systemError() -> String {
        String(cString: strerror(systemErrno))
    }
}
