import VersionGateCore

/// Every file operation the library makes, behind one protocol so tests can
/// put another file system under a client (`System.files`). The production
/// one is `POSIXFiles`. Paths are absolute; nothing here follows a policy of
/// its own beyond "never hang, never balloon, never half-write".
package protocol FileSystem: Sendable {
    /// What identifies this version of the file (stat); nil when absent.
    func identity(of path: String) -> FileIdentity?
    /// A regular file's bytes, at most `maxBytes`; a FIFO, device or larger
    /// file is refused (`.config`, naming the path) and never waited on.
    func read(_ path: String, maxBytes: Int) throws(GateFailure) -> (bytes: [UInt8], identity: FileIdentity)
    /// Replaces `path` atomically (temp file + rename), creating missing
    /// directories 0700; `durable` fsyncs first. False when it could not.
    func replace(_ path: String, with bytes: [UInt8], durable: Bool) -> Bool
    func remove(_ path: String)
    /// Creates `path` empty, mode 0600, only if nothing is there (O_EXCL,
    /// never through a symlink), its directory 0700 if missing.
    func createExclusively(_ path: String) -> ExclusiveCreation
    /// Whether a file changed so recently that a second write could still
    /// land with the same timestamps, so a parse of it must not be trusted
    /// to stay current (git's "racily clean" rule).
    func isRecentlyChanged(_ identity: FileIdentity) -> Bool
}

package enum ExclusiveCreation: Sendable, Equatable {
    case created, alreadyThere, failed
}

/// Device, inode, size and both timestamps: equal identities mean the same
/// contents (unless `FileSystem.isRecentlyChanged`).
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64, inode: UInt64, size: Int64
    package var modifiedSeconds: Int64, modifiedNanoseconds: Int64
    package var changedSeconds: Int64, changedNanoseconds: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64,
                 changedSeconds: Int64, changedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedSeconds = changedSeconds
        self.changedNanoseconds = changedNanoseconds
    }
}
