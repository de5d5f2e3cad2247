/// Finds which blocks of a zsync target are already in the seed (the
/// running AppImage): the window's rolling checksum is looked up at every
/// offset, and a hit is confirmed by MD4. With seq_matches 2 a hit needs
/// the next block to match too, or to continue a run (zsync 0.6.2's rule,
/// which lets short rsums stay reliable). After a hit the scan jumps a
/// block, since the next match most likely starts there.
package enum ZsyncMatcher {
    /// The plan for a seed read through `read(offset, count)`, which must
    /// return exactly `count` bytes (the scan never asks past `seedLength`),
    /// `chunkBytes` (1 B to 1 GiB) at a time plus a window's context.
    package static func plan(_ control: ZsyncControl, seedLength: UInt64, chunkBytes: Int = 1 << 20,
                             read: (UInt64, Int) -> [UInt8]?) throws(ZsyncUpdateError) -> ZsyncPlan {
        let chunkBytes = min(max(1, chunkBytes), 1 << 30)
        var scan = Scan(control)
        // The seed continues with `context` zero bytes, as zsync pads it: a
        // window may then match the target's zero-padded last block.
        var start: UInt64 = 0
        while start < seedLength, scan.remaining > 0 {
            let count = Int(min(UInt64(chunkBytes + scan.context), seedLength - start))
            guard var bytes = read(start, count), bytes.count == count else { throw .seedUnreadable(offset: start) }
            let atEnd = start + UInt64(count) == seedLength
            if atEnd { bytes.append(contentsOf: repeatElement(0, count: scan.context)) }
            // Offsets below this have their whole window (and the byte that rolls in) here.
            let limit = bytes.count - scan.context
            let stop = bytes.withUnsafeBytes { scan.run($0, base: start, limit: limit) }
            if atEnd { break }
            start += UInt64(stop)
        }
        return ZsyncPlan(blockSize: control.blockSize, length: control.length, seedLength: seedLength,
                         offsets: scan.offsets)
    }

    package static func plan(_ control: ZsyncControl, seed: [UInt8]) -> ZsyncPlan {
        let plan = try? plan(control, seedLength: UInt64(seed.count)) { offset, count in
            Array(seed[Int(offset)..<(Int(offset) + count)])
        }
        // A buffer is always readable; an empty plan keeps this total anyway.
        return plan ?? ZsyncPlan(blockSize: control.blockSize, length: control.length,
                                 seedLength: 0, offsets: [Int64](repeating: -1, count: control.blockCount))
    }
}

/// The scan's state, carried from one chunk of the seed to the next.
private struct Scan {
    let control: ZsyncControl
    let blockSize: Int
    let shift: Int
    let mask: UInt32
    let pairs: Bool
    let context: Int
    var table: ZsyncBlockTable
    var offsets: [Int64]
    var remaining: Int
    var r0 = ZsyncRollingChecksum(UnsafeRawBufferPointer(start: nil, count: 0))
    var r1 = ZsyncRollingChecksum(UnsafeRawBufferPointer(start: nil, count: 0))
    /// Whether r0 and r1 are the sums of the window at the next offset.
    var rolling = false
    /// After a run of matches (pairs only): the block expected next, or -1.
    var expected = -1

    init(_ control: ZsyncControl) {
        self.control = control
        blockSize = control.blockSize
        shift = control.blockShift
        mask = control.rsumMask
        pairs = control.seqMatches == 2
        context = blockSize * control.seqMatches
        table = ZsyncBlockTable(control)
        offsets = [Int64](repeating: -1, count: control.blockCount)
        remaining = control.blockCount
    }

    /// Scans offsets 0..<limit of `data` (whose offset 0 is the seed's
    /// `base`); returns where the next chunk must start.
    mutating func run(_ data: UnsafeRawBufferPointer, base: UInt64, limit: Int) -> Int {
        // The sums live in locals, in registers: as fields, each byte's
        // 16-bit stores and 32-bit load stalled store forwarding (2x slower).
        var r0 = self.r0, r1 = self.r1
        defer { (self.r0, self.r1) = (r0, r1) }
        var x = 0
        while x < limit {
            if !rolling {
                r0 = ZsyncRollingChecksum(UnsafeRawBufferPointer(rebasing: data[x..<(x + blockSize)]))
                if pairs { r1 = ZsyncRollingChecksum(UnsafeRawBufferPointer(rebasing: data[(x + blockSize)..<(x + context)])) }
                rolling = true
            }
            let key = r0.value & mask, second = pairs ? r1.value & mask : 0
            let matched = expected >= 0 || table.mayHave(key, second) ? match(data, at: x, base: base, key: key, second: second) : 0
            if matched > 0 {
                x += matched * blockSize
                // One block on, the second window's sum is the first's.
                if matched == 1, pairs, x < limit {
                    r0 = r1
                    r1 = ZsyncRollingChecksum(UnsafeRawBufferPointer(rebasing: data[(x + blockSize)..<(x + context)]))
                } else {
                    rolling = false
                }
                if remaining == 0 { return x }
                continue
            }
            let old = data[x], new = data[x + blockSize]
            r0.roll(out: old, in: new, shift: shift)
            if pairs { r1.roll(out: new, in: data[x + context], shift: shift) }
            x += 1
        }
        return x
    }

    /// How many blocks the window at `x` matched (0, 1 or seq_matches).
    private mutating func match(_ data: UnsafeRawBufferPointer, at x: Int, base: UInt64, key: UInt32, second: UInt32) -> Int {
        let window = UnsafeRawBufferPointer(rebasing: data[x..<(x + blockSize)])
        var first: MD4Digest?
        if pairs, expected >= 0 {
            let block = expected
            expected = -1
            if block < offsets.count, offsets[block] < 0, control.rsums[block] == key {
                let digest = MD4.digest(window)
                first = digest
                if confirms(digest, block) {
                    found(block, at: base + UInt64(x))
                    expected = block + 1
                    return 1
                }
            }
        }
        var candidate = table.first(key, second)
        var hit = false
        var next: MD4Digest?
        while candidate >= 0 {
            let block = candidate
            candidate = table.after(block)
            // Found blocks leave the table, but this walk may have stepped onto one.
            guard offsets[block] < 0, control.rsums[block] == key, !pairs || control.rsums[block + 1] == second else { continue }
            let digest = first ?? MD4.digest(window)
            first = digest
            guard confirms(digest, block) else { continue }
            if pairs {
                let following = next ?? MD4.digest(UnsafeRawBufferPointer(rebasing: data[(x + blockSize)..<(x + context)]))
                next = following
                guard confirms(following, block + 1) else { continue }
                if !hit { expected = block + 2 }
                found(block + 1, at: base + UInt64(x + blockSize))
            }
            found(block, at: base + UInt64(x))
            hit = true
        }
        return hit ? control.seqMatches : 0
    }

    private func confirms(_ digest: MD4Digest, _ block: Int) -> Bool {
        digest.hasPrefix(control.checksums, at: block * control.checksumBytes, count: control.checksumBytes)
    }

    private mutating func found(_ block: Int, at offset: UInt64) {
        guard offsets[block] < 0 else { return }
        offsets[block] = Int64(offset)
        remaining -= 1
        let second = pairs && block + 1 < offsets.count ? control.rsums[block + 1] : 0
        table.remove(block, key: control.rsums[block], second: second)
    }
}
