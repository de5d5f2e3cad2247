#if canImport(Glibc)
import Glibc
#endif

/// A directory entry's name, read up to its NUL in place: the entry's
/// record may end before `d_name`'s declared 256 bytes (the kernel packs
/// records), so copying the whole array reads past the end of readdir's
/// buffer (AddressSanitizer caught it).
package func directoryEntryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafePointer(to: &entry.pointee.d_name) { name in
        name.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
    }
}
