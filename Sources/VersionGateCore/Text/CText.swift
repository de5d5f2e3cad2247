/// An immutable NUL-terminated copy of a string, so C callers get a stable
/// `const char *` for as long as something retains it. Results share these
/// with the snapshot and catalog they came from instead of copying every
/// string on every check. Standard library only: the core imports no libc.
package final class CText: Sendable {
    package nonisolated(unsafe) let pointer: UnsafeMutablePointer<CChar>
    package let string: String
    /// UTF-8 bytes without the NUL.
    package let count: Int

    package init(_ string: String) {
        self.string = string
        var copy = string
        let (pointer, count) = copy.withUTF8 { utf8 -> (UnsafeMutablePointer<CChar>, Int) in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
            let raw = UnsafeMutableRawPointer(pointer)
            if let source = utf8.baseAddress { raw.copyMemory(from: source, byteCount: utf8.count) }
            pointer[utf8.count] = 0
            return (pointer, utf8.count)
        }
        self.pointer = pointer
        self.count = count
    }

    deinit { pointer.deallocate() }

    package var cString: UnsafePointer<CChar> { UnsafePointer(pointer) }

    /// The bytes without the NUL; valid while self lives.
    package var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: count)
    }
}
