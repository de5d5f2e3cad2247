import VersionGateCore
import VersionGateWire

/// Every file operation the library makes, behind one protocol so tests can
/// put another file system under a client (`System.files`). The production
/// one is `POSIXFiles`. Nothing here hangs (only regular files are read,
/// non-blocking), balloons (reads are bounded) or half-writes (temp file +
/// rename), and nothing another user could have written is trusted.
package protocol FileSystem: Sendable {
    /// What identifies this version of the file (stat); nil when absent.
    func identity(of path: String) -> FileIdentity?
    /// A regular file's bytes, at most `maxBytes`, if `trust` allows the file
    /// (and, for `.private`, its directory); nil when the file (or that
    /// directory) does not exist, with no failure built; otherwise `.config`
    /// naming the path and the problem. A FIFO, device or larger file is
    /// never waited on.
    func readIfPresent(_ path: String, maxBytes: Int, trust: FileTrust) throws(GateFailure)
        -> (bytes: [UInt8], identity: FileIdentity)?
    /// Replaces `path` in a private directory atomically (temp file +
    /// rename), creating missing directories 0700; `durable` fsyncs first.
    /// False when it could not, or the directory is not the user's own.
    func replace(_ path: String, with bytes: [UInt8], durable: Bool) -> Bool
    func remove(_ path: String)
    /// Renames `path` to `newName` in the same private directory: atomic,
    /// so of several processes renaming one file exactly one succeeds.
    /// False when nothing was there or the directory is not the user's own.
    func rename(_ path: String, to newName: String) -> Bool
    /// Creates `path` empty, mode 0600, only if nothing is there (O_EXCL,
    /// never through a symlink), in a private directory made 0700 if missing.
    func createExclusively(_ path: String) -> ExclusiveCreation
    /// An exclusive lock on `path` (a lock file in a private directory,
    /// made if missing), waited for until `deadline`: held, still held by
    /// another at the deadline (`busy`), or impossible here (`unavailable`:
    /// no such directory can be made or used, e.g. a read-only cache). The
    /// lock is released when the FileLock goes away, and by the kernel when
    /// its holder dies.
    func lock(_ path: String, until deadline: Deadline) -> LockAttempt
    /// nil when `path` is a directory the user owns that no one else may
    /// enter (mode 0700, as XDG asks of $XDG_RUNTIME_DIR); else why not.
    func privateBaseProblem(_ path: String) -> String?
    /// Whether a file changed so recently that a second write could still
    /// land with the same timestamps, so a parse of it must not be trusted
    /// to stay current (git's "racily clean" rule).
    func isRecentlyChanged(_ identity: FileIdentity) -> Bool
    /// The names in `directory` (not `.` nor `..`), in no order; empty when
    /// it cannot be read.
    func names(in directory: String) -> [String]
}

extension FileSystem {
    /// As `readIfPresent`, with a missing file a failure too.
    package func read(_ path: String, maxBytes: Int, trust: FileTrust) throws(GateFailure)
        -> (bytes: [UInt8], identity: FileIdentity) {
        guard let read = try readIfPresent(path, maxBytes: maxBytes, trust: trust) else {
            throw .config("cannot open \(path): No such file or directory")
        }
        return read
    }
}

/// Whose files a read may use (docs/design.md, "The trust model").
package enum FileTrust: Sendable, Equatable {
    /// A gate document: owned by root or the user, not writable by others
    /// (group-writable is allowed: a team may share one).
    case document
    /// The library's own cache or state: a file the user owns, not writable
    /// by others, in a directory the user owns that neither group nor others
    /// can write, reached without following a symlink.
    case `private`
}

package enum LockAttempt: Sendable {
    case acquired(FileLock)
    case busy
    case unavailable

    package var lock: FileLock? {
        if case .acquired(let lock) = self { return lock }
        return nil
    }
}

/// A held lock; dropping it releases it.
package final class FileLock: Sendable {
    /// The open file the lock is on (-1: none): a helper started with it
    /// holds the lock on after this one is released.
    package let descriptor: Int32
    private let release: @Sendable () -> Void

    package init(descriptor: Int32 = -1, release: @escaping @Sendable () -> Void) {
        (self.descriptor, self.release) = (descriptor, release)
    }

    deinit { release() }
}

package enum ExclusiveCreation: Sendable, Equatable {
    case created, alreadyThere
    /// Nothing was created; the reason, for the result's note.
    case failed(String)
}
