import VersionGateCore

/// Device, inode, size and both timestamps: equal identities mean the same
/// contents (unless `FileSystem.isRecentlyChanged`). It crosses the wire:
/// the helper names the cache file it wrote, so the host need not read it back.
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64, inode: UInt64, size: Int64
    package var modifiedSeconds: Int64, modifiedNanoseconds: Int64
    package var changedSeconds: Int64, changedNanoseconds: Int64

    // Inlinable, as when this type lived in the system layer: every warm
    // check makes one and compares it, across the module boundary.
    @inlinable
    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64,
                 changedSeconds: Int64, changedNanoseconds: Int64) {
        (self.device, self.inode, self.size) = (device, inode, size)
        (self.modifiedSeconds, self.modifiedNanoseconds) = (modifiedSeconds, modifiedNanoseconds)
        (self.changedSeconds, self.changedNanoseconds) = (changedSeconds, changedNanoseconds)
    }

    @inlinable
    package static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.modifiedSeconds == b.modifiedSeconds
            && a.modifiedNanoseconds == b.modifiedNanoseconds && a.changedSeconds == b.changedSeconds
            && a.changedNanoseconds == b.changedNanoseconds
    }
}

extension FileIdentity {
    /// "device inode size mtime mtime-ns ctime ctime-ns", each a decimal.
    package var wireText: String {
        [device, inode].map { String($0) }.joined(separator: " ") + " "
            + [size, modifiedSeconds, modifiedNanoseconds, changedSeconds, changedNanoseconds].map { String($0) }
            .joined(separator: " ")
    }

    package init?(wireText text: String) {
        let numbers = text.split(separator: " ").compactMap { Int64(decimal: String($0)) }
        guard numbers.count == 7 else { return nil }
        self.init(device: UInt64(numbers[0]), inode: UInt64(numbers[1]), size: numbers[2], modifiedSeconds: numbers[3],
                  modifiedNanoseconds: numbers[4], changedSeconds: numbers[5], changedNanoseconds: numbers[6])
    }
}
