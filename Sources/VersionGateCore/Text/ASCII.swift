/// Byte-level helpers shared by every parser: ASCII only, so no Unicode
/// digit, letter or space can slip through (`Character.isNumber` accepts
/// "٣", `.whitespaces` trims NBSP).
package enum ASCII {
    package static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    package static func isLowercaseLetter(_ b: UInt8) -> Bool { b &- 0x61 < 26 }
    package static func isLetter(_ b: UInt8) -> Bool { isLowercaseLetter(b | 0x20) }
    /// RFC 3986 unreserved: `A-Z a-z 0-9 - . _ ~`.
    package static func isUnreserved(_ b: UInt8) -> Bool {
        isLetter(b) || isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }
    package static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// `0-9 a-f A-F` → 0...15.
    package static func hexValue(_ b: UInt8) -> UInt8? {
        if isDigit(b) { return b &- 0x30 }
        let lower = b | 0x20
        return lower &- 0x61 < 6 ? lower &- 0x61 &+ 10 : nil
    }

    /// Without spaces and tabs at either end (nothing else is trimmed).
    package static func trimmingBlanks(_ text: some StringProtocol) -> String {
        let utf8 = Array(text.utf8)
        var start = 0, end = utf8.count
        while start < end, isBlank(utf8[start]) { start += 1 }
        while end > start, isBlank(utf8[end - 1]) { end -= 1 }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }

    /// An endpoint or base URL without its trailing slashes.
    package static func withoutTrailingSlashes(_ text: String) -> String {
        var base = Substring(text)
        while base.hasSuffix("/") { base = base.dropLast() }
        return String(base)
    }
}

/// RFC 3986 percent-encoding: the one encoder and decoder.
package enum PercentEncoding {
    /// Unreserved characters kept, every other UTF-8 byte as `%XX`.
    package static func encoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if ASCII.isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `%XX` decoded; nil for a malformed escape or bytes that are not UTF-8.
    package static func decoded(_ text: some StringProtocol) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        while let b = bytes.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let hi = bytes.next().flatMap(ASCII.hexValue), let lo = bytes.next().flatMap(ASCII.hexValue) else {
                return nil
            }
            out.append(hi << 4 | lo)
        }
        return String(validating: out, as: UTF8.self)
    }
}
