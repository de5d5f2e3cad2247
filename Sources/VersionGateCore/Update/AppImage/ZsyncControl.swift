/// A zsync control file (`.zsync`, zsync 0.6.2's format, as `zsyncmake`
/// writes it) for an uncompressed target: `Key: value` header lines up to
/// an empty line, then for each block of the target the last `rsumBytes`
/// bytes of its rolling checksum (big endian, a then b) and the first
/// `checksumBytes` bytes of its MD4, the last block zero-padded.
/// docs/design.md, "Updating an AppImage by zsync" lists the rules.
package struct ZsyncControl: Equatable, Sendable {
    package static let maxBytes = 64 << 20
    package static let maxLineBytes = 1024
    package static let maxHeaderLines = 64
    package static let maxLength: UInt64 = 1 << 40
    package static let blockSizes = 64...(16 << 20)

    package let version: String
    package let filename: String?
    package let mtime: String?
    package let blockSize: Int
    package let length: UInt64
    /// 2: a block counts as found only with its successor (or its predecessor's run).
    package let seqMatches: Int
    package let rsumBytes: Int
    package let checksumBytes: Int
    package let urls: [String]
    package let sha1: [UInt8]
    /// Per block: the stored rsum bytes, right-aligned, the rest zero (a
    /// window's sum compares after `rsumMask`).
    package let rsums: [UInt32]
    /// Per block, `checksumBytes` bytes of MD4, one after the other.
    package let checksums: [UInt8]

    package var blockCount: Int { rsums.count }
    /// The bytes of a window's sum (a << 16 | b) that the file stored. For
    /// rsum_bytes 1 that is b's low byte; zsync 0.6.2 compares all of b
    /// there, so it rarely matches (zsyncmake writes 2 to 4).
    package var rsumMask: UInt32 { rsumBytes >= 4 ? .max : (UInt32(1) << UInt32(rsumBytes * 8)) &- 1 }
    package var blockShift: Int { blockSize.trailingZeroBitCount }

    /// Every key zsync 0.6.2 reads; the compressed target's ones are refused.
    private static let compressedKeys: Set = ["Z-URL", "Z-Map2", "Z-Filename", "Recompress"]

    package init(parsing bytes: [UInt8]) throws(ZsyncControlError) {
        guard bytes.count <= Self.maxBytes else { throw .tooLarge(bytes: bytes.count) }
        let header = try Self.readHeader(bytes)
        let fields = header.fields
        guard let version = fields["zsync"] else { throw .missingKey("zsync") }
        guard version != "0.0.4" else { throw .unsupportedVersion(version) }
        // zsync compares versions as strings; so does this.
        if let minimum = fields["Min-Version"], minimum > "0.6.2" { throw .unsupportedVersion(minimum) }
        let size = try Self.blockSize(fields)
        let length = try Self.length(fields)
        let lengths = try Self.hashLengths(fields)
        guard !header.urls.isEmpty else { throw .missingKey("URL") }
        guard !header.urls.contains(where: \.isEmpty) else { throw .badValue(key: "URL", reason: "is empty") }
        let sha = try Self.sha1(fields)

        let blocks = Int(length / size) + (length % size == 0 ? 0 : 1)
        let (rsums, checksums) = try Self.readBlockSums(bytes, from: header.end, blocks: blocks,
                                                        rsumBytes: lengths[1], checksumBytes: lengths[2])
        self.version = version
        self.filename = fields["Filename"]
        self.mtime = fields["MTime"]
        self.blockSize = Int(size)
        self.length = UInt64(length)
        self.seqMatches = lengths[0]
        self.rsumBytes = lengths[1]
        self.checksumBytes = lengths[2]
        self.urls = header.urls
        self.sha1 = sha
        self.rsums = rsums
        self.checksums = checksums
    }

    /// The header's keys, read up to its empty line (`end`: where the block sums start).
    private struct Header {
        var fields: [String: String] = [:]
        var urls: [String] = []
        var end = 0
    }

    private static func readHeader(_ bytes: [UInt8]) throws(ZsyncControlError) -> Header {
        var header = Header()
        var safe: Set<String> = []
        var unknown: [String] = []
        var lineNumber = 0
        while true {
            guard let newline = bytes[header.end...].firstIndex(of: 0x0A) else { throw .headerUnterminated }
            lineNumber += 1
            guard lineNumber <= Self.maxHeaderLines + 1 else { throw .tooManyLines }
            guard newline - header.end <= Self.maxLineBytes else { throw .lineTooLong(line: lineNumber) }
            var line = bytes[header.end..<newline]
            header.end = newline + 1
            // zsync trims CR and spaces at the end of a line.
            while let last = line.last, last == 0x0D || last == 0x20 { line = line.dropLast() }
            if line.isEmpty { break }
            guard lineNumber <= Self.maxHeaderLines else { throw .tooManyLines }
            let (key, value) = try keyAndValue(line, lineNumber: lineNumber)
            if Self.compressedKeys.contains(key) { throw .compressedTarget(key: key) }
            switch key {
            case "URL": header.urls.append(value)
            case "Safe": safe.formUnion(value.split(separator: " ").map { String($0.hasSuffix(":") ? $0.dropLast() : $0) })
            case "zsync", "Filename", "MTime", "Blocksize", "Length", "Hash-Lengths", "SHA-1", "Min-Version":
                guard header.fields.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key) }
            default: unknown.append(key)
            }
        }
        // Judged after the whole header: Safe may follow the keys it names.
        if let key = unknown.first(where: { !safe.contains($0) }) { throw .unknownKey(key) }
        return header
    }

    /// One `Key: value` line, trimmed already.
    private static func keyAndValue(_ line: ArraySlice<UInt8>, lineNumber: Int) throws(ZsyncControlError) -> (String, String) {
        guard let text = String(validating: line, as: UTF8.self) else { throw .notUTF8(line: lineNumber) }
        // C0, DEL, C1, bidi controls and separators: values reach logs and messages.
        guard !text.unicodeScalars.contains(where: { ControlScalar($0) != nil }) else { throw .controlCharacter(line: lineNumber) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
              colon + 1 < line.endIndex, line[colon + 1] == 0x20,
              line[line.startIndex..<colon].allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") })
        else { throw .malformedLine(line: lineNumber) }
        return (String(decoding: line[line.startIndex..<colon], as: UTF8.self), String(decoding: line[(colon + 2)...], as: UTF8.self))
    }

    private static func blockSize(_ fields: [String: String]) throws(ZsyncControlError) -> Int64 {
        guard let sizeText = fields["Blocksize"] else { throw .missingKey("Blocksize") }
        guard let size = Int64(decimal: sizeText), size & (size - 1) == 0,
              size >= Int64(Self.blockSizes.lowerBound), size <= Int64(Self.blockSizes.upperBound) else {
            throw .badValue(key: "Blocksize", reason: "is not a power of two from \(Self.blockSizes.lowerBound) to \(Self.blockSizes.upperBound)")
        }
        return size
    }

    private static func length(_ fields: [String: String]) throws(ZsyncControlError) -> Int64 {
        guard let lengthText = fields["Length"] else { throw .missingKey("Length") }
        guard let length = Int64(decimal: lengthText), length > 0, UInt64(length) <= Self.maxLength else {
            throw .badValue(key: "Length", reason: "is not a whole number from 1 to \(Self.maxLength)")
        }
        return length
    }

    /// seq_matches, rsum_bytes and checksum_bytes.
    private static func hashLengths(_ fields: [String: String]) throws(ZsyncControlError) -> [Int] {
        // zsync's defaults when the line is absent (files before 0.6).
        guard let text = fields["Hash-Lengths"] else { return [1, 4, 16] }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Int64(decimal: String($0)) }
        guard parts.count == 3, text.utf8.count <= 8,
              (1...2).contains(parts[0]), (1...4).contains(parts[1]), (3...16).contains(parts[2]) else {
            throw .badValue(key: "Hash-Lengths", reason: "is not seq_matches (1-2),rsum_bytes (1-4),checksum_bytes (3-16)")
        }
        return parts.map { Int($0) }
    }

    private static func sha1(_ fields: [String: String]) throws(ZsyncControlError) -> [UInt8] {
        guard let shaText = fields["SHA-1"] else { throw .missingKey("SHA-1") }
        let shaHex = Array(shaText.utf8)
        let sha = stride(from: 0, to: shaHex.count - 1, by: 2).compactMap { k -> UInt8? in
            guard let high = ASCII.hexValue(shaHex[k]), let low = ASCII.hexValue(shaHex[k + 1]) else { return nil }
            return high << 4 | low
        }
        guard shaHex.count == 40, sha.count == 20 else { throw .badValue(key: "SHA-1", reason: "is not 40 hexadecimal digits") }
        return sha
    }

    /// Each block's stored rsum bytes and MD4 prefix, which must fill the rest of the file exactly.
    private static func readBlockSums(_ bytes: [UInt8], from position: Int, blocks: Int, rsumBytes: Int,
                                      checksumBytes: Int) throws(ZsyncControlError) -> (rsums: [UInt32], checksums: [UInt8]) {
        let perBlock = rsumBytes + checksumBytes
        let rest = bytes.count - position
        // blocks * perBlock cannot overflow (Length <= 2^40, perBlock <= 20), but the
        // reported figure must not trap on any input either.
        let (expected, overflow) = blocks.multipliedReportingOverflow(by: perBlock)
        guard !overflow, expected == rest else { throw .checksumsSize(expected: overflow ? .max : expected, actual: rest) }

        var rsums: [UInt32] = []
        rsums.reserveCapacity(blocks)
        var checksums: [UInt8] = []
        checksums.reserveCapacity(blocks * checksumBytes)
        var at = position
        for _ in 0..<blocks {
            var rsum: UInt32 = 0
            for k in 0..<rsumBytes { rsum = rsum << 8 | UInt32(bytes[at + k]) }
            rsums.append(rsum)
            checksums.append(contentsOf: bytes[(at + rsumBytes)..<(at + perBlock)])
            at += perBlock
        }
        return (rsums, checksums)
    }

    /// The file as zsyncmake orders it (keys it ignores dropped): parsing
    /// this gives back an equal control.
    package func serialized() -> [UInt8] {
        var header = "zsync: \(version)\n"
        if let filename { header += "Filename: \(filename)\n" }
        if let mtime { header += "MTime: \(mtime)\n" }
        header += "Blocksize: \(blockSize)\nLength: \(length)\nHash-Lengths: \(seqMatches),\(rsumBytes),\(checksumBytes)\n"
        for url in urls { header += "URL: \(url)\n" }
        let hex = Array("0123456789abcdef".utf8)
        header += "SHA-1: " + String(decoding: sha1.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self) + "\n\n"
        var out = Array(header.utf8)
        for block in 0..<blockCount {
            for k in (0..<rsumBytes).reversed() { out.append(UInt8(truncatingIfNeeded: rsums[block] >> UInt32(k * 8))) }
            out.append(contentsOf: checksums[(block * checksumBytes)..<((block + 1) * checksumBytes)])
        }
        return out
    }
}
