/// MD4 (RFC 1320): zsync's strong checksum of each block. Only for matching
/// blocks against a control file; the file as a whole is checked by SHA-1.
/// One call per block, on a borrowed buffer, with no allocation: the seed
/// scan computes one for every candidate window.
package struct MD4Digest: Equatable, Sendable {
    package var a: UInt32, b: UInt32, c: UInt32, d: UInt32

    /// Byte `index` (0..<16) of the digest, little endian as RFC 1320 prints it.
    package func byte(_ index: Int) -> UInt8 {
        let word: UInt32
        switch index >> 2 {
        case 0: word = a
        case 1: word = b
        case 2: word = c
        default: word = d
        }
        return UInt8(truncatingIfNeeded: word >> (UInt32(index & 3) &* 8))
    }

    package var bytes: [UInt8] { (0..<16).map(byte) }

    /// Whether the first `count` bytes equal `expected[start..<start+count]`.
    package func hasPrefix(_ expected: [UInt8], at start: Int, count: Int) -> Bool {
        guard count <= 16, start >= 0, start <= expected.count, count <= expected.count &- start else { return false }
        for k in 0..<count where expected[start &+ k] != byte(k) { return false }
        return true
    }
}

package enum MD4 {
    package static func digest(_ bytes: [UInt8]) -> MD4Digest {
        bytes.withUnsafeBytes { digest($0) }
    }

    package static func digest(_ data: UnsafeRawBufferPointer) -> MD4Digest {
        var state = MD4Digest(a: 0x6745_2301, b: 0xEFCD_AB89, c: 0x98BA_DCFE, d: 0x1032_5476)
        let whole = data.count & ~63
        var offset = 0
        while offset < whole {
            compress(&state, UnsafeRawBufferPointer(rebasing: data[offset..<(offset + 64)]))
            offset += 64
        }
        // The tail, 0x80, zeros, then the bit length: one or two more blocks.
        var tail = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                    UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &tail) { block in
            let rest = data.count - whole
            for k in 0..<rest { block[k] = data[whole + k] }
            block[rest] = 0x80
            let end = rest < 56 ? 64 : 128
            let bits = UInt64(truncatingIfNeeded: data.count) &* 8
            for k in 0..<8 { block[end - 8 + k] = UInt8(truncatingIfNeeded: bits >> (UInt64(k) * 8)) }
            compress(&state, UnsafeRawBufferPointer(rebasing: block[0..<64]))
            if end == 128 { compress(&state, UnsafeRawBufferPointer(rebasing: block[64..<128])) }
        }
        return state
    }

    @inline(__always)
    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }

    private static func compress(_ state: inout MD4Digest, _ block: UnsafeRawBufferPointer) {
        var x = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                 UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeMutableBytes(of: &x) { words in
            for k in 0..<16 {
                words.storeBytes(of: UInt32(littleEndian: block.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)),
                                 toByteOffset: k * 4, as: UInt32.self)
            }
        }
        var (a, b, c, d) = (state.a, state.b, state.c, state.d)
        withUnsafeBytes(of: &x) { raw in
            let w = raw.bindMemory(to: UInt32.self)
            @inline(__always) func f(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { (x & y) | (~x & z) }
            @inline(__always) func g(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { (x & y) | (x & z) | (y & z) }
            @inline(__always) func h(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { x ^ y ^ z }
            for i in stride(from: 0, to: 16, by: 4) {
                a = rotl(a &+ f(b, c, d) &+ w[i], 3)
                d = rotl(d &+ f(a, b, c) &+ w[i + 1], 7)
                c = rotl(c &+ f(d, a, b) &+ w[i + 2], 11)
                b = rotl(b &+ f(c, d, a) &+ w[i + 3], 19)
            }
            for i in 0..<4 {
                a = rotl(a &+ g(b, c, d) &+ w[i] &+ 0x5A82_7999, 3)
                d = rotl(d &+ g(a, b, c) &+ w[i + 4] &+ 0x5A82_7999, 5)
                c = rotl(c &+ g(d, a, b) &+ w[i + 8] &+ 0x5A82_7999, 9)
                b = rotl(b &+ g(c, d, a) &+ w[i + 12] &+ 0x5A82_7999, 13)
            }
            // Round 3 takes the words in the order 0, 2, 1, 3 (RFC 1320, 3.4).
            for k in 0..<4 {
                let i = (k & 1) << 1 | (k >> 1)
                a = rotl(a &+ h(b, c, d) &+ w[i] &+ 0x6ED9_EBA1, 3)
                d = rotl(d &+ h(a, b, c) &+ w[i + 8] &+ 0x6ED9_EBA1, 9)
                c = rotl(c &+ h(d, a, b) &+ w[i + 4] &+ 0x6ED9_EBA1, 11)
                b = rotl(b &+ h(c, d, a) &+ w[i + 12] &+ 0x6ED9_EBA1, 15)
            }
        }
        state.a = state.a &+ a
        state.b = state.b &+ b
        state.c = state.c &+ c
        state.d = state.d &+ d
    }
}
