/// NUL-terminated copies of strings in a NULL-terminated vector, as C's
/// `argv` and `envp` are, freed with the value: the one way an argument
/// vector is built for C. A string's own NUL would end its copy there.
package final class CStringArray {
    private let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    package init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: count + 1)
        for (index, string) in strings.enumerated() {
            let bytes = Array(string.utf8)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() { copy[offset] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            (pointers + index).initialize(to: copy)
        }
        (pointers + count).initialize(to: nil)
    }

    deinit {
        for index in 0..<count { pointers[index]?.deallocate() }
        pointers.deallocate()
    }

    /// Valid while this value lives (`withExtendedLifetime` around the C call).
    package var vector: UnsafePointer<UnsafeMutablePointer<CChar>?> { UnsafePointer(pointers) }
}
