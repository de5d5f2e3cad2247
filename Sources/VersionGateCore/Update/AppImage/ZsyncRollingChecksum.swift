/// zsync's weak checksum of a block, rsync's rolling sum with 16-bit halves:
/// a = Σ byte, b = Σ (n − i)·byte over the n bytes, both modulo 2^16.
/// Rolling one byte on costs two additions, so every offset of the seed is
/// tried.
package struct ZsyncRollingChecksum: Equatable, Sendable {
    package var a: UInt16 = 0
    package var b: UInt16 = 0

    package init(_ block: UnsafeRawBufferPointer) {
        for byte in block {
            a = a &+ UInt16(byte)
            b = b &+ a
        }
    }

    package init(_ block: [UInt8]) {
        self = block.withUnsafeBytes { ZsyncRollingChecksum($0) }
    }

    /// The sum of the window one byte on: `old` leaves, `new` enters; the
    /// window is 2^`shift` bytes.
    @inline(__always)
    package mutating func roll(out old: UInt8, in new: UInt8, shift: Int) {
        a = a &+ UInt16(new) &- UInt16(old)
        b = b &+ a &- UInt16(truncatingIfNeeded: UInt32(old) << UInt32(shift))
    }

    /// As the control file stores it: a then b, big endian.
    package var value: UInt32 { UInt32(a) << 16 | UInt32(b) }
}
