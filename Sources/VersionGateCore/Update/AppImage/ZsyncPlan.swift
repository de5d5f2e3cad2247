/// What the seed scan found: for each block of the target, the seed offset
/// its bytes are copied from, or none (it is fetched). The fetched blocks
/// merge into byte ranges of the target: ascending, coalesced, the last
/// one ending at the target's length.
package struct ZsyncPlan: Equatable, Sendable {
    package let blockSize: Int
    package let length: UInt64
    /// How many bytes the seed had: a copy that reaches past it reads zeros,
    /// as the scan's padded window did.
    package let seedLength: UInt64
    /// -1: fetch. Int64 rather than an optional: half the memory for the
    /// millions of blocks of a large AppImage.
    private let offsets: [Int64]

    init(blockSize: Int, length: UInt64, seedLength: UInt64, offsets: [Int64]) {
        self.blockSize = blockSize
        self.length = length
        self.seedLength = seedLength
        self.offsets = offsets
    }

    package var blockCount: Int { offsets.count }

    /// Where block `block`'s bytes start in the seed; nil when fetched.
    package func seedOffset(ofBlock block: Int) -> UInt64? {
        guard block >= 0, block < offsets.count, offsets[block] >= 0 else { return nil }
        return UInt64(offsets[block])
    }

    /// The target's bytes of `block` (the last block may be short).
    package func range(ofBlock block: Int) -> Range<UInt64> {
        let start = min(UInt64(clamping: block), UInt64(offsets.count)) * UInt64(blockSize)
        let end = min(start + UInt64(blockSize), length)
        return min(start, end)..<end
    }

    /// The byte ranges of the target to fetch.
    package var fetchRanges: [Range<UInt64>] {
        var ranges: [Range<UInt64>] = []
        for block in 0..<offsets.count where offsets[block] < 0 {
            let bytes = range(ofBlock: block)
            if let last = ranges.last, last.upperBound == bytes.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound..<bytes.upperBound
            } else {
                ranges.append(bytes)
            }
        }
        return ranges
    }

    package var fetchedBlockCount: Int { offsets.reduce(0) { $0 + ($1 < 0 ? 1 : 0) } }
}
