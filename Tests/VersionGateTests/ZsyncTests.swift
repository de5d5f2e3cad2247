import Foundation
import XCTest
@testable import VersionGateCore

/// The pure core of an AppImage update by zsync (issue #42): MD4 and SHA-1
/// against their standards' vectors, the control file as Debian's zsyncmake
/// 0.6.2 writes it (Tests/Fixtures/zsync), the seed scan's plan and the
/// assembler, which must refuse what a corrupt server sends.
final class ZsyncTests: XCTestCase {
    private let directory = TestFiles.fixtures.appendingPathComponent("zsync")

    private func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    private func control(_ name: String = "v2.bin.zsync") throws -> ZsyncControl {
        try ZsyncControl(parsing: bytes(name))
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    // MARK: hashes

    func testMD4VectorsOfRFC1320() {
        let rows: [(String, String)] = [
            ("", "31d6cfe0d16ae931b73c59d7e0c089c0"),
            ("a", "bde52cb31de33e46245e05fbdbd6fb24"),
            ("abc", "a448017aaf21d8525fc10ae87aa6729d"),
            ("message digest", "d9130a8164549fe818874806e1c7014b"),
            ("abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "043f8582f241db351ce627e153e7f0e4"),
            (String(repeating: "1234567890", count: 8), "e33b4ddc9c38f2199c3e7b164fcc0536"),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(hex(MD4.digest(Array(text.utf8)).bytes), expected, text)
        }
    }

    func testSHA1VectorsOfFIPS180AndRFC3174() {
        let rows: [([UInt8], String)] = [
            ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (Array(String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10).utf8),
             "dea356a2cddd90c7a7ecedc5ebb563934f460452"),
            ([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ]
        for (input, expected) in rows {
            XCTAssertEqual(hex(SHA1.digest(input)), expected, "\(input.count) bytes")
        }
    }

    /// Fed in pieces of every size, SHA-1 gives the one-shot digest.
    func testSHA1Incremental() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let whole = SHA1.digest(message)
        for piece in [1, 3, 55, 56, 63, 64, 65, 128, 299] {
            var hasher = SHA1()
            for start in stride(from: 0, to: message.count, by: piece) {
                hasher.update(Array(message[start..<min(start + piece, message.count)]))
            }
            XCTAssertEqual(hasher.finalize(), whole, "pieces of \(piece)")
        }
    }

    // MARK: the control file

    func testFixtureControlFields() throws {
        let control = try control()
        XCTAssertEqual(control.version, "0.6.2")
        XCTAssertEqual(control.filename, "v2.bin")
        XCTAssertEqual(control.mtime, "Thu, 01 Jan 2026 00:00:00 +0000")
        XCTAssertEqual(control.blockSize, 2048)
        XCTAssertEqual(control.length, 299_050)
        XCTAssertEqual([control.seqMatches, control.rsumBytes, control.checksumBytes], [2, 2, 4])
        XCTAssertEqual(control.urls, ["https://example.org/app/v2.bin"])
        XCTAssertEqual(hex(control.sha1), "e68346868848dca0cdac102ea72b8713daa83ee3")
        XCTAssertEqual(control.blockCount, 147)  // ceil(299050 / 2048)
        XCTAssertEqual(control.sha1, SHA1.digest(try bytes("v2.bin")))
    }

    /// Our rolling checksum and MD4 of each block (the last zero-padded) are
    /// what zsyncmake stored: the two sums agree with zsync's.
    func testBlockSumsAgreeWithZsyncmake() throws {
        for (file, controlName) in [("v1.bin", "v1.bin.zsync"), ("v2.bin", "v2.bin.zsync")] {
            let control = try control(controlName)
            let data = try bytes(file)
            for block in 0..<control.blockCount {
                let start = block * control.blockSize
                var bytes = Array(data[start..<min(start + control.blockSize, data.count)])
                bytes += [UInt8](repeating: 0, count: control.blockSize - bytes.count)
                XCTAssertEqual(ZsyncRollingChecksum(bytes).value & control.rsumMask, control.rsums[block], "\(file) block \(block)")
                XCTAssertTrue(MD4.digest(bytes).hasPrefix(control.checksums, at: block * 4, count: 4), "\(file) block \(block)")
            }
        }
    }

    /// Rolling a byte at a time gives the sum computed afresh at every offset.
    func testRollingEqualsRecomputing() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for shift in [6, 10] {
            let size = 1 << shift
            var sum = ZsyncRollingChecksum(Array(data[0..<size]))
            for x in 1..<(data.count - size) {
                sum.roll(out: data[x - 1], in: data[x - 1 + size], shift: shift)
                XCTAssertEqual(sum, ZsyncRollingChecksum(Array(data[x..<(x + size)])), "offset \(x), block \(size)")
            }
        }
    }

    func testSerializationParsesBackEqual() throws {
        for name in ["v1.bin.zsync", "v2.bin.zsync"] {
            let control = try control(name)
            XCTAssertEqual(try ZsyncControl(parsing: control.serialized()), control)
            XCTAssertEqual(control.serialized(), try bytes(name), "zsyncmake's own layout, byte for byte")
        }
    }

    /// The fixture's header with `edit` applied, and its block sums.
    private func edited(_ edit: (String) -> String) throws -> [UInt8] {
        let raw = try bytes("v2.bin.zsync")
        let split = try XCTUnwrap(raw.firstRange(of: Array("\n\n".utf8)))
        let header = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        return Array(edit(header).utf8) + Array(raw[split.lowerBound...])
    }

    private func replacing(_ old: String, _ new: String) throws -> [UInt8] {
        try edited { header in
            XCTAssertTrue(header.contains(old), old)
            return header.replacingOccurrences(of: old, with: new)
        }
    }

    func testMalformedControlFilesAreRefused() throws {
        let rows: [(String, [UInt8], ZsyncControlError)] = [
            ("no blank line", Array("zsync: 0.6.2\nBlocksize: 2048\n".utf8), .headerUnterminated),
            ("empty", [], .headerUnterminated),
            ("line too long", try replacing("Filename: v2.bin", "Filename: " + String(repeating: "x", count: 1100)), .lineTooLong(line: 2)),
            ("too many lines", try edited { $0 + String(repeating: "\nURL: u", count: 60) }, .tooManyLines),
            ("no colon", try replacing("Filename: v2.bin", "Filename v2.bin"), .malformedLine(line: 2)),
            ("no space after colon", try replacing("Filename: v2.bin", "Filename:v2.bin"), .malformedLine(line: 2)),
            ("empty key", try replacing("Filename: v2.bin", ": v2.bin"), .malformedLine(line: 2)),
            ("tab in value", try replacing("Filename: v2.bin", "Filename: v2\t.bin"), .controlCharacter(line: 2)),
            ("DEL in value", try replacing("Filename: v2.bin", "Filename: v2\u{7F}.bin"), .controlCharacter(line: 2)),
            ("C1 control in value", try replacing("Filename: v2.bin", "Filename: v2\u{85}.bin"), .controlCharacter(line: 2)),
            ("bidi override in value", try replacing("zsync: 0.6.2", "zsync: 0.6.2\u{202E}"), .controlCharacter(line: 1)),
            ("not UTF-8", try replacing("Filename: v2.bin", "Filename: v2.bin").replacing(Array("v2.bin\n".utf8), with: [0x76, 0xFF, 0x0A]),
             .notUTF8(line: 2)),
            ("duplicate Length", try replacing("Length: 299050", "Length: 299050\nLength: 299050"), .duplicateKey("Length")),
            ("unknown key", try replacing("Filename: v2.bin", "Filename: v2.bin\nColour: blue"), .unknownKey("Colour")),
            ("0.0.4", try replacing("zsync: 0.6.2", "zsync: 0.0.4"), .unsupportedVersion("0.0.4")),
            ("Min-Version", try replacing("zsync: 0.6.2", "zsync: 0.6.2\nMin-Version: 0.7.0"), .unsupportedVersion("0.7.0")),
            ("Z-URL", try replacing("URL: https", "Z-URL: https"), .compressedTarget(key: "Z-URL")),
            ("Z-Map2", try replacing("Filename: v2.bin", "Z-Map2: 3"), .compressedTarget(key: "Z-Map2")),
            ("Recompress", try replacing("Filename: v2.bin", "Recompress: 1f8b 9"), .compressedTarget(key: "Recompress")),
            ("Z-Filename", try replacing("Filename: v2.bin", "Z-Filename: v2.bin.gz"), .compressedTarget(key: "Z-Filename")),
            ("no zsync", try replacing("zsync: 0.6.2\n", ""), .missingKey("zsync")),
            ("no Blocksize", try replacing("Blocksize: 2048\n", ""), .missingKey("Blocksize")),
            ("no Length", try replacing("Length: 299050\n", ""), .missingKey("Length")),
            ("no URL", try replacing("URL: https://example.org/app/v2.bin\n", ""), .missingKey("URL")),
            ("no SHA-1", try replacing("\nSHA-1: e68346868848dca0cdac102ea72b8713daa83ee3", ""), .missingKey("SHA-1")),
            ("Blocksize not a power of two", try replacing("Blocksize: 2048", "Blocksize: 2000"), blockSizeError),
            ("Blocksize zero", try replacing("Blocksize: 2048", "Blocksize: 0"), blockSizeError),
            ("Blocksize 32", try replacing("Blocksize: 2048", "Blocksize: 32"), blockSizeError),
            ("Blocksize 32 MiB", try replacing("Blocksize: 2048", "Blocksize: 33554432"), blockSizeError),
            ("Blocksize negative", try replacing("Blocksize: 2048", "Blocksize: -2048"), blockSizeError),
            ("Length zero", try replacing("Length: 299050", "Length: 0"), lengthError),
            ("Length over 1 TiB", try replacing("Length: 299050", "Length: 1099511627777"), lengthError),
            ("Length not a number", try replacing("Length: 299050", "Length: 299050x"), lengthError),
            ("Length overflows", try replacing("Length: 299050", "Length: 99999999999999999999999"), lengthError),
            ("seq_matches 3", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 3,2,4"), hashError),
            ("rsum_bytes 0", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,0,4"), hashError),
            ("rsum_bytes 5", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,5,4"), hashError),
            ("checksum_bytes 2", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,2,2"), hashError),
            ("checksum_bytes 17", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,2,17"), hashError),
            ("two fields", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,2"), hashError),
            ("four fields", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,2,4,4"), hashError),
            ("SHA-1 short", try replacing("SHA-1: e68346868848dca0cdac102ea72b8713daa83ee3", "SHA-1: e68346"), shaError),
            ("SHA-1 not hex", try replacing("SHA-1: e68346868848dca0cdac102ea72b8713daa83ee3", "SHA-1: g68346868848dca0cdac102ea72b8713daa83ee3"), shaError),
            ("SHA-1 41 digits", try replacing("SHA-1: e68346868848dca0cdac102ea72b8713daa83ee3", "SHA-1: e68346868848dca0cdac102ea72b8713daa83ee30"), shaError),
            // The sums must be exactly ceil(Length / Blocksize) blocks of 6 bytes.
            ("Length one block more", try replacing("Length: 299050", "Length: 301057"), .checksumsSize(expected: 888, actual: 882)),
            ("Length one block less", try replacing("Length: 299050", "Length: 296960"), .checksumsSize(expected: 870, actual: 882)),
            ("Length huge", try replacing("Length: 299050", "Length: 1099511627776"), .checksumsSize(expected: 3_221_225_472, actual: 882)),
            ("block sums truncated", Array(try bytes("v2.bin.zsync").dropLast()), .checksumsSize(expected: 882, actual: 881)),
            ("block sums with a byte more", try bytes("v2.bin.zsync") + [0], .checksumsSize(expected: 882, actual: 883)),
            ("wider hash lengths", try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 2,4,16"), .checksumsSize(expected: 2940, actual: 882)),
            ("over 64 MiB", [UInt8](repeating: 0x41, count: ZsyncControl.maxBytes + 1), .tooLarge(bytes: ZsyncControl.maxBytes + 1)),
        ]
        for (name, input, expected) in rows {
            XCTAssertThrowsError(try ZsyncControl(parsing: input), name) { error in
                XCTAssertEqual(error as? ZsyncControlError, expected, name)
                XCTAssertFalse((error as? ZsyncControlError)?.message.isEmpty ?? true, name)
            }
        }
    }

    private let blockSizeError = ZsyncControlError.badValue(key: "Blocksize", reason: "is not a power of two from 64 to 16777216")
    private let lengthError = ZsyncControlError.badValue(key: "Length", reason: "is not a whole number from 1 to 1099511627776")
    private let hashError = ZsyncControlError.badValue(key: "Hash-Lengths", reason: "is not seq_matches (1-2),rsum_bytes (1-4),checksum_bytes (3-16)")
    private let shaError = ZsyncControlError.badValue(key: "SHA-1", reason: "is not 40 hexadecimal digits")

    /// What zsync tolerates, so do we: CRLF and trailing spaces, keys named
    /// Safe, several URLs, no Hash-Lengths (zsync's defaults 1,4,16).
    func testTolerableVariants() throws {
        let crlf = try edited { $0.replacingOccurrences(of: "\n", with: " \r\n") }
        XCTAssertEqual(try ZsyncControl(parsing: crlf.replacing(Array("\n\n".utf8), with: Array("\n\r\n".utf8))), try control())
        let safe = try ZsyncControl(parsing: try replacing("Filename: v2.bin", "Filename: v2.bin\nColour: blue\nSafe: Colour Recompress MTime:"))
        XCTAssertEqual(safe, try control())
        let urls = try ZsyncControl(parsing: try replacing("URL: https", "URL: v2.bin\nURL: https"))
        XCTAssertEqual(urls.urls, ["v2.bin", "https://example.org/app/v2.bin"])
        // 147 blocks of 20 bytes: the old defaults' layout.
        let old = try edited { $0.replacingOccurrences(of: "Hash-Lengths: 2,2,4\n", with: "") }
        let header = old.prefix(upTo: try XCTUnwrap(old.firstRange(of: Array("\n\n".utf8))).upperBound)
        let parsed = try ZsyncControl(parsing: Array(header) + [UInt8](repeating: 7, count: 147 * 20))
        XCTAssertEqual([parsed.seqMatches, parsed.rsumBytes, parsed.checksumBytes, parsed.blockCount], [1, 4, 16, 147])
    }

    // MARK: the plan

    /// v2 against v1: only the blocks with changed bytes are fetched; the
    /// inserted and deleted bytes shift the rest, which the scan finds.
    func testPlanFetchesOnlyChangedBlocks() throws {
        let control = try control()
        let plan = ZsyncMatcher.plan(control, seed: try bytes("v1.bin"))
        let fetched = (0..<plan.blockCount).filter { plan.seedOffset(ofBlock: $0) == nil }
        XCTAssertEqual(fetched, [24, 58, 97, 146])
        XCTAssertEqual(plan.fetchRanges, [49152..<51200, 118_784..<120_832, 198_656..<200_704, 299_008..<299_050])
        XCTAssertEqual(plan.fetchedBlockCount, 4)
        // Offsets the edits explain: before the insertion unchanged, then +37 shifted back, after the deletion +963.
        XCTAssertEqual(plan.seedOffset(ofBlock: 10), 20480)
        XCTAssertEqual(plan.seedOffset(ofBlock: 70), 70 * 2048 - 37)
        XCTAssertEqual(plan.seedOffset(ofBlock: 120), 120 * 2048 - 37 + 1000)
    }

    func testPlanOfTheTargetItselfFetchesNothing() throws {
        let plan = ZsyncMatcher.plan(try control(), seed: try bytes("v2.bin"))
        XCTAssertEqual(plan.fetchRanges, [])
        XCTAssertEqual(plan.seedOffset(ofBlock: 146), 146 * 2048)
    }

    func testPlanOfNoSeedFetchesTheWholeFile() throws {
        XCTAssertEqual(ZsyncMatcher.plan(try control(), seed: []).fetchRanges, [0..<299_050])
        XCTAssertEqual(ZsyncMatcher.plan(try control(), seed: [UInt8](repeating: 0x55, count: 10000)).fetchRanges, [0..<299_050])
    }

    /// The seed read in chunks of any size gives the plan of one read.
    func testChunkedScanGivesTheSamePlan() throws {
        let control = try control()
        let seed = try bytes("v1.bin")
        let whole = ZsyncMatcher.plan(control, seed: seed)
        for chunk in [1, 7, 2047, 2048, 4099, 65536] {
            var reads = 0
            let plan = try ZsyncMatcher.plan(control, seedLength: UInt64(seed.count), chunkBytes: chunk) { offset, count in
                reads += 1
                XCTAssertLessThanOrEqual(Int(offset) + count, seed.count)
                return Array(seed[Int(offset)..<(Int(offset) + count)])
            }
            XCTAssertEqual(plan, whole, "chunks of \(chunk)")
            XCTAssertGreaterThan(reads, chunk < 65536 ? 4 : 0)
        }
    }

    /// zsync's seq_matches 1 (a single block suffices) on the same sums:
    /// still only the changed blocks, the last one included when unchanged.
    func testSingleBlockMatches() throws {
        let single = try ZsyncControl(parsing: try replacing("Hash-Lengths: 2,2,4", "Hash-Lengths: 1,2,4"))
        let plan = ZsyncMatcher.plan(single, seed: try bytes("v1.bin"))
        XCTAssertEqual(plan.fetchRanges, [49152..<51200, 118_784..<120_832, 198_656..<200_704, 299_008..<299_050])
        var output: [UInt8] = []
        // Read before the call: Swift 6.0's SIL verifier rejects a `try` among
        // arguments after a closure argument (an ownership false positive).
        let (v1, v2) = (try bytes("v1.bin"), try bytes("v2.bin"))
        try ZsyncAssembler.assemble(single, plan: plan, readSeed: seedReader(v1), fetched: server(v2),
                                    write: { output += $0; return true })
        XCTAssertEqual(output, v2)
    }

    /// With pairs required, a lone unchanged block between two changed ones
    /// is fetched (zsync's rule); a single match is enough with seq 1.
    func testPairsAreRequired() throws {
        var target = Array(try bytes("v1.bin")[0..<(10 * 2048)])
        for block in [3, 5] { target[block * 2048] ^= 0xFF }
        let seed = try bytes("v1.bin")
        for (seq, expected) in [(2, [3, 4, 5]), (1, [3, 5])] {
            let control = try makeControl(target, blockSize: 2048, seqMatches: seq, rsumBytes: 4, checksumBytes: 16)
            let plan = ZsyncMatcher.plan(control, seed: seed)
            XCTAssertEqual((0..<plan.blockCount).filter { plan.seedOffset(ofBlock: $0) == nil }, expected, "seq \(seq)")
        }
    }

    /// Identical blocks (a run of zeros) are all found from one seed block,
    /// and every hash width zsync allows works.
    func testIdenticalBlocksAndEveryHashWidth() throws {
        let random = try bytes("v1.bin")
        let target = Array(random[0..<5000]) + [UInt8](repeating: 0, count: 40 * 1024) + Array(random[9000..<12000])
        let seed = Array(random[0..<12000]) + [UInt8](repeating: 0, count: 3000)
        for rsumBytes in 1...4 {
            for checksumBytes in [3, 8, 16] {
                let control = try makeControl(target, blockSize: 1024, seqMatches: 1, rsumBytes: rsumBytes, checksumBytes: checksumBytes)
                let plan = ZsyncMatcher.plan(control, seed: seed)
                let name = "rsum \(rsumBytes), checksum \(checksumBytes)"
                // Blocks 5...43 are zeros; 4 and 44 mix data and zeros as the
                // seed never does; 45...47 are in the seed 36 960 bytes earlier,
                // the last one zero-padded as the seed's zeros are.
                XCTAssertEqual((0..<plan.blockCount).filter { plan.seedOffset(ofBlock: $0) == nil }, [4, 44], name)
                XCTAssertEqual(plan.seedOffset(ofBlock: 47), 47 * 1024 - 36960, name)
                var output: [UInt8] = []
                try ZsyncAssembler.assemble(control, plan: plan, readSeed: seedReader(seed), fetched: server(target),
                                            write: { output += $0; return true })
                XCTAssertEqual(output, target, name)
            }
        }
    }

    // MARK: assembly

    private func seedReader(_ seed: [UInt8]) -> (UInt64, Int) -> [UInt8]? {
        { offset, count in
            guard offset <= UInt64(seed.count), count <= seed.count - Int(offset) else { return nil }
            return Array(seed[Int(offset)..<(Int(offset) + count)])
        }
    }

    private func server(_ target: [UInt8]) -> (Range<UInt64>) -> [UInt8]? {
        { range in Array(target[Int(range.lowerBound)..<Int(range.upperBound)]) }
    }

    func testAssemblyRebuildsV2ByteForByte() throws {
        let control = try control()
        let v1 = try bytes("v1.bin"), v2 = try bytes("v2.bin")
        let plan = ZsyncMatcher.plan(control, seed: v1)
        var asked: [Range<UInt64>] = []
        var output: [UInt8] = []
        try ZsyncAssembler.assemble(control, plan: plan, readSeed: seedReader(v1),
                                    fetched: { asked.append($0); return self.server(v2)($0) },
                                    write: { output += $0; return true })
        XCTAssertEqual(output, v2)
        XCTAssertEqual(asked, plan.fetchRanges)
    }

    func testCorruptFetchedBlockIsRefused() throws {
        let control = try control()
        let v1 = try bytes("v1.bin")
        var v2 = try bytes("v2.bin")
        v2[58 * 2048 + 100] ^= 1
        XCTAssertThrowsError(try ZsyncAssembler.assemble(control, plan: ZsyncMatcher.plan(control, seed: v1), readSeed: seedReader(v1),
                                                         fetched: server(v2), write: { _ in true })) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .fetchedBlockCorrupt(block: 58))
        }
        // The last, short block is checked zero-padded, as zsyncmake summed it.
        v2 = try bytes("v2.bin")
        v2[v2.count - 1] ^= 1
        XCTAssertThrowsError(try ZsyncAssembler.assemble(control, plan: ZsyncMatcher.plan(control, seed: v1), readSeed: seedReader(v1),
                                                         fetched: server(v2), write: { _ in true })) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .fetchedBlockCorrupt(block: 146))
        }
    }

    func testWrongSHA1IsRefused() throws {
        let wrong = try ZsyncControl(parsing: try replacing("SHA-1: e6834686", "SHA-1: e6834687"))
        let (v1, v2) = (try bytes("v1.bin"), try bytes("v2.bin"))
        XCTAssertThrowsError(try ZsyncAssembler.assemble(wrong, plan: ZsyncMatcher.plan(wrong, seed: v1), readSeed: seedReader(v1),
                                                         fetched: server(v2), write: { _ in true })) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .sha1Mismatch)
        }
    }

    /// A seed that changed between scan and copy fails by its SHA-1.
    func testChangedSeedIsRefused() throws {
        let control = try control()
        let (v1, v2) = (try bytes("v1.bin"), try bytes("v2.bin"))
        var changed = v1
        changed[1000] ^= 1
        XCTAssertThrowsError(try ZsyncAssembler.assemble(control, plan: ZsyncMatcher.plan(control, seed: v1), readSeed: seedReader(changed),
                                                         fetched: server(v2), write: { _ in true })) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .sha1Mismatch)
        }
    }

    func testShortAnswersAndFailuresAreRefused() throws {
        let control = try control()
        let v1 = try bytes("v1.bin"), v2 = try bytes("v2.bin")
        let plan = ZsyncMatcher.plan(control, seed: v1)
        let rows: [(String, (UInt64, Int) -> [UInt8]?, (Range<UInt64>) -> [UInt8]?, ([UInt8]) -> Bool, ZsyncUpdateError)] = [
            ("range missing", seedReader(v1), { _ in nil }, { _ in true }, .fetchedRangeMissing(49152..<51200)),
            ("range short", seedReader(v1), { self.server(v2)($0).map { Array($0.dropLast()) } }, { _ in true }, .fetchedRangeWrongSize(49152..<51200, got: 2047)),
            ("range long", seedReader(v1), { self.server(v2)($0).map { $0 + [0] } }, { _ in true }, .fetchedRangeWrongSize(49152..<51200, got: 2049)),
            ("seed unreadable", { _, _ in nil }, server(v2), { _ in true }, .seedUnreadable(offset: 0)),
            ("seed short", { offset, count in self.seedReader(v1)(offset, count).map { Array($0.dropLast()) } }, server(v2), { _ in true },
             .seedUnreadable(offset: 0)),
            ("write fails", seedReader(v1), server(v2), { _ in false }, .writeFailed(offset: 0)),
        ]
        for (name, seed, fetched, write, expected) in rows {
            XCTAssertThrowsError(try ZsyncAssembler.assemble(control, plan: plan, readSeed: seed, fetched: fetched, write: write), name) {
                XCTAssertEqual($0 as? ZsyncUpdateError, expected, name)
            }
        }
        XCTAssertThrowsError(try ZsyncMatcher.plan(control, seedLength: UInt64(v1.count)) { _, _ in nil }) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .seedUnreadable(offset: 0))
        }
        XCTAssertThrowsError(try ZsyncMatcher.plan(control, seedLength: UInt64(v1.count), chunkBytes: 4096) { offset, count in
            offset > 0 ? [] : Array(v1[0..<count])
        }) {
            XCTAssertEqual($0 as? ZsyncUpdateError, .seedUnreadable(offset: 4096))
        }
    }
}

/// A control file as zsyncmake lays it out, for hash widths and block sizes
/// it does not choose itself; the sums are ours, which
/// testBlockSumsAgreeWithZsyncmake holds to zsyncmake's.
func makeControl(_ target: [UInt8], blockSize: Int, seqMatches: Int, rsumBytes: Int, checksumBytes: Int) throws -> ZsyncControl {
    var text = "zsync: 0.6.2\nBlocksize: \(blockSize)\nLength: \(target.count)\nHash-Lengths: \(seqMatches),\(rsumBytes),\(checksumBytes)\n"
    text += "URL: t\nSHA-1: " + SHA1.digest(target).map { String(format: "%02x", $0) }.joined() + "\n\n"
    var bytes = Array(text.utf8)
    for start in stride(from: 0, to: target.count, by: blockSize) {
        var block = Array(target[start..<min(start + blockSize, target.count)])
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let rsum = ZsyncRollingChecksum(block).value
        for k in (0..<rsumBytes).reversed() { bytes.append(UInt8(truncatingIfNeeded: rsum >> UInt32(k * 8))) }
        bytes += MD4.digest(block).bytes.prefix(checksumBytes)
    }
    return try ZsyncControl(parsing: bytes)
}
