#if canImport(Glibc)
import Glibc
#endif

/// An immutable NUL-terminated copy of a string in malloc'd memory, so C
/// callers get a stable `const char *` for as long as something retains it.
/// Results share these with the snapshot and catalog they came from instead
/// of copying every string on every check.
final class CText: Sendable {
    /// NULL only when the copy could not be allocated.
    nonisolated(unsafe) let pointer: UnsafeMutablePointer<CChar>?
    let string: String

    init(_ string: String) {
        self.string = string
        self.pointer = strdup(string)
    }

    deinit { free(pointer) }

    var cString: UnsafePointer<CChar>? { pointer.map { UnsafePointer($0) } }

    /// The bytes without the NUL (empty if the copy failed); valid while self lives.
    var bytes: UnsafeBufferPointer<UInt8> {
        guard let pointer else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                   count: string.utf8.count)
    }
}
