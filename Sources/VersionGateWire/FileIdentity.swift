/// Device, inode, size and both timestamps: equal identities mean the same
/// contents (unless `FileSystem.isRecentlyChanged`). It crosses the wire:
/// the helper names the cache file it wrote, so the host need not read it back.
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64, inode: UInt64, size: Int64
    package var modifiedSeconds: Int64, modifiedNanoseconds: Int64
    package var changedSeconds: Int64, changedNanoseconds: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64,
                 changedSeconds: Int64, changedNanoseconds: Int64) {
        (self.device, self.inode, self.size) = (device, inode, size)
        (self.modifiedSeconds, self.modifiedNanoseconds) = (modifiedSeconds, modifiedNanoseconds)
        (self.changedSeconds, self.changedNanoseconds) = (changedSeconds, changedNanoseconds)
    }
}
