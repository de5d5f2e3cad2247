import VersionGateCore

/// A private directory of small files we own (`…/versiongate`, mode 0700),
/// on a FileSystem: written atomically and read defensively, so a corrupt,
/// huge, FIFO or symlinked file is rejected instead of trusted or waited on.
package struct PrivateDirectory: Sendable {
    package let path: String
    package let files: any FileSystem

    /// nil when there is no base directory. Nothing is created until a write.
    package init?(base: String?, files: any FileSystem) {
        guard let base else { return nil }
        path = base + "/versiongate"
        self.files = files
    }

    package func filePath(_ name: String) -> String { path + "/" + name }

    /// The file's bytes, or nil when it is missing, not a regular file, over
    /// `maxBytes` or unreadable.
    package func read(_ name: String, maxBytes: Int) -> [UInt8]? {
        (try? files.readIfPresent(filePath(name), maxBytes: maxBytes, trust: .private))??.bytes
    }

    /// Replaces `name` with `bytes` atomically; false when it could not.
    /// `durable` adds an fsync before the rename, for state whose loss
    /// matters (the Firebase installation); a cache can be re-fetched, and
    /// the fsync costs more than the fetch on a loopback server.
    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8], durable: Bool = false) -> Bool {
        files.replace(filePath(name), with: bytes, durable: durable)
    }

    package func remove(_ name: String) { files.remove(filePath(name)) }
}
