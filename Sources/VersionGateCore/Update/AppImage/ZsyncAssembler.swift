/// Builds the target from a plan: blocks found in the seed are copied from
/// it, the rest come from `fetched`, asked in ascending order for pieces of
/// the plan's fetch ranges of at most `runBytes` (the caller may have
/// fetched a range whole). Each fetched
/// block must have the control file's MD4 and the whole output its SHA-1,
/// so a corrupt or lying server fails the update instead of installing.
/// The output streams to `write` in order; nothing is held but one range
/// or one run of seed blocks.
package enum ZsyncAssembler {
    /// Most bytes read from the seed, or asked of `fetched`, at once.
    static let runBytes = 1 << 20

    package static func assemble(_ control: ZsyncControl, plan: ZsyncPlan,
                                 readSeed: (UInt64, Int) -> [UInt8]?,
                                 fetched: (Range<UInt64>) -> [UInt8]?,
                                 write: ([UInt8]) -> Bool) throws(ZsyncUpdateError) {
        var sha1 = SHA1()
        var written: UInt64 = 0
        func emit(_ bytes: [UInt8]) throws(ZsyncUpdateError) {
            guard write(bytes) else { throw .writeFailed(offset: written) }
            sha1.update(bytes)
            written += UInt64(bytes.count)
        }
        let blockSize = control.blockSize
        let maxRun = max(1, runBytes / blockSize)
        var block = 0
        while block < plan.blockCount {
            if let start = plan.seedOffset(ofBlock: block) {
                // A run of blocks that lie one after the other in the seed too.
                var end = block + 1
                while end < plan.blockCount, end - block < maxRun,
                      plan.seedOffset(ofBlock: end) == start + UInt64(end - block) * UInt64(blockSize) { end += 1 }
                let count = Int(plan.range(ofBlock: end - 1).upperBound - plan.range(ofBlock: block).lowerBound)
                try emit(try seedBytes(plan, at: start, count: count, read: readSeed))
                block = end
                continue
            }
            var end = block + 1
            while end < plan.blockCount, end - block < maxRun, plan.seedOffset(ofBlock: end) == nil { end += 1 }
            let range = plan.range(ofBlock: block).lowerBound..<plan.range(ofBlock: end - 1).upperBound
            guard let bytes = fetched(range) else { throw .fetchedRangeMissing(range) }
            guard UInt64(bytes.count) == UInt64(range.count) else { throw .fetchedRangeWrongSize(range, got: bytes.count) }
            try verify(control, bytes, firstBlock: block)
            try emit(bytes)
            block = end
        }
        guard sha1.finalize() == control.sha1 else { throw .sha1Mismatch }
    }

    /// `count` bytes of the seed from `offset`, zeros past its end (the
    /// padding the scan matched against).
    private static func seedBytes(_ plan: ZsyncPlan, at offset: UInt64, count: Int,
                                  read: (UInt64, Int) -> [UInt8]?) throws(ZsyncUpdateError) -> [UInt8] {
        let available = offset < plan.seedLength ? Int(min(UInt64(count), plan.seedLength - offset)) : 0
        var bytes: [UInt8] = []
        if available > 0 {
            guard let read = read(offset, available), read.count == available else { throw .seedUnreadable(offset: offset) }
            bytes = read
        }
        bytes.append(contentsOf: repeatElement(0, count: count - available))
        return bytes
    }

    /// Each block of a fetched range against its MD4 (the last block of the
    /// file zero-padded, as zsyncmake summed it).
    private static func verify(_ control: ZsyncControl, _ bytes: [UInt8], firstBlock: Int) throws(ZsyncUpdateError) {
        let blockSize = control.blockSize
        var padded: [UInt8] = []
        for (k, start) in stride(from: 0, to: bytes.count, by: blockSize).enumerated() {
            let end = min(start + blockSize, bytes.count)
            let digest: MD4Digest
            if end - start == blockSize {
                digest = bytes.withUnsafeBytes { MD4.digest(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            } else {
                padded = Array(bytes[start..<end]) + [UInt8](repeating: 0, count: blockSize - (end - start))
                digest = MD4.digest(padded)
            }
            let block = firstBlock + k
            guard digest.hasPrefix(control.checksums, at: block * control.checksumBytes, count: control.checksumBytes) else {
                throw .fetchedBlockCorrupt(block: block)
            }
        }
    }
}
