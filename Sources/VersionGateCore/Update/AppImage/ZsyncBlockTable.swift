/// The target's blocks by weak checksum, for the seed scan: a bucket per
/// hash of the block's rsum (and, when two blocks must match in sequence,
/// its successor's, as zsync keys it), chained through arrays. A block
/// leaves the table once found, so a run of identical blocks (zeros) costs
/// one chain walk, not one per offset. In front, a bit per hash value at 16
/// times the buckets' resolution (as zsync's bithash): most offsets of a
/// seed match nothing, and are turned away by one load from a small array.
struct ZsyncBlockTable {
    private var head: [Int32]
    private var next: [Int32]
    private var previous: [Int32]
    private var filter: [UInt64]
    private let shift: UInt32
    private let filterShift: UInt32
    private static let absent: Int32 = -2

    init(_ control: ZsyncControl) {
        let count = control.blockCount
        // With seq_matches 2 the last block has no successor to key on: like
        // zsync, it is found only as the continuation of a run.
        let keyed = control.seqMatches == 2 ? count - 1 : count
        var bits = 8
        while bits < 26, 1 << bits < 2 * count { bits += 1 }
        shift = UInt32(32 - bits)
        // 16 bits a bucket, at most 2^27 bits (16 MiB).
        let filterBits = min(bits + 4, 27)
        filterShift = UInt32(32 - filterBits)
        filter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
        head = [Int32](repeating: -1, count: 1 << bits)
        next = [Int32](repeating: -1, count: count)
        previous = [Int32](repeating: Self.absent, count: count)
        // In reverse, so each chain lists its blocks in file order.
        for block in stride(from: keyed - 1, through: 0, by: -1) {
            let second = control.seqMatches == 2 ? control.rsums[block + 1] : 0
            let hash = mix(control.rsums[block], second)
            filter[Int(hash >> (filterShift + 6))] |= 1 << UInt64(hash >> filterShift & 63)
            let bucket = Int(hash >> shift)
            let first = head[bucket]
            next[block] = first
            previous[block] = -1
            if first >= 0 { previous[Int(first)] = Int32(block) }
            head[bucket] = Int32(block)
        }
    }

    @inline(__always)
    private func mix(_ key: UInt32, _ second: UInt32) -> UInt32 {
        (key &* 0x9E37_79B1) ^ (second &* 0x85EB_CA77)
    }

    @inline(__always)
    private func index(_ key: UInt32, _ second: UInt32) -> Int { Int(mix(key, second) >> shift) }

    /// False when no block has these keys; true when one may.
    @inline(__always)
    func mayHave(_ key: UInt32, _ second: UInt32) -> Bool {
        let hash = mix(key, second)
        return filter[Int(hash >> (filterShift + 6))] & (1 << UInt64(hash >> filterShift & 63)) != 0
    }

    /// The first block of the chain for these keys, or -1.
    @inline(__always)
    func first(_ key: UInt32, _ second: UInt32) -> Int { Int(head[index(key, second)]) }

    @inline(__always)
    func after(_ block: Int) -> Int { Int(next[block]) }

    /// Takes `block` out of its chain (a no-op when it is not in the table).
    mutating func remove(_ block: Int, key: UInt32, second: UInt32) {
        let before = previous[block]
        guard before != Self.absent else { return }
        let after = next[block]
        if before >= 0 { next[Int(before)] = after } else { head[index(key, second)] = after }
        if after >= 0 { previous[Int(after)] = before }
        previous[block] = Self.absent
    }
}
