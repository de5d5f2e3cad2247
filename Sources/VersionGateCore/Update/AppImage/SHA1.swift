/// SHA-1 (FIPS 180-4), incremental: the whole-file check of a zsync
/// control file, fed block by block as the output is written, so a file of
/// any size streams through a fixed 64-byte buffer.
package struct SHA1: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var pending = [UInt8](repeating: 0, count: 64)
    private var pendingCount = 0
    private var length: UInt64 = 0

    package init() {}

    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    package mutating func update(_ data: UnsafeRawBufferPointer) {
        length = length &+ UInt64(truncatingIfNeeded: data.count)
        var offset = 0
        if pendingCount > 0 {
            let take = min(64 - pendingCount, data.count)
            for k in 0..<take { pending[pendingCount + k] = data[k] }
            pendingCount += take
            offset = take
            guard pendingCount == 64 else { return }
            pending.withUnsafeBytes { compress($0) }
            pendingCount = 0
        }
        while data.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: data[offset..<(offset + 64)]))
            offset += 64
        }
        for k in offset..<data.count { pending[k - offset] = data[k] }
        pendingCount = data.count - offset
    }

    /// The 20-byte digest; the hasher is spent.
    package mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80] + [UInt8](repeating: 0, count: (119 - pendingCount) % 64)
        for k in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (UInt64(k) * 8))) }
        let saved = length
        update(tail)
        length = saved
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for k in (0..<4).reversed() { out.append(UInt8(truncatingIfNeeded: word >> (UInt32(k) * 8))) }
        }
        return out
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var w = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                 UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        var (a, b, c, d, e) = h
        withUnsafeMutableBytes(of: &w) { raw in
            let w = raw.bindMemory(to: UInt32.self)
            for k in 0..<16 {
                w[k] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self))
            }
            // The message schedule kept as a 16-word ring (FIPS 180-4, 6.1.3);
            // one loop per round function, so none is chosen per step.
            @inline(__always) func step(_ t: Int, _ f: UInt32, _ k: UInt32) {
                let s = t & 15
                if t >= 16 {
                    let x = w[(s + 13) & 15] ^ w[(s + 8) & 15] ^ w[(s + 2) & 15] ^ w[s]
                    w[s] = (x << 1) | (x >> 31)
                }
                let temp = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ w[s]
                e = d
                d = c
                c = (b << 30) | (b >> 2)
                b = a
                a = temp
            }
            for t in 0..<20 { step(t, (b & c) | (~b & d), 0x5A82_7999) }
            for t in 20..<40 { step(t, b ^ c ^ d, 0x6ED9_EBA1) }
            for t in 40..<60 { step(t, (b & c) | (b & d) | (c & d), 0x8F1B_BCDC) }
            for t in 60..<80 { step(t, b ^ c ^ d, 0xCA62_C1D6) }
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
}
