/// Base64 (RFC 4648 §4, the standard alphabet) decoded strictly: padding
/// required, no whitespace, and unused bits zero, so each byte string has
/// exactly one accepted text (a signature cannot be re-spelled).
package enum StrictBase64 {
    /// nil for anything but canonical base64 of at most `maxBytes` bytes.
    package static func decode(_ text: ArraySlice<UInt8>, maxBytes: Int) -> [UInt8]? {
        guard text.count % 4 == 0, text.count / 4 * 3 <= maxBytes + 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var index = text.startIndex
        while index < text.endIndex {
            let last = text.index(index, offsetBy: 4) == text.endIndex
            let quad = text[index..<text.index(index, offsetBy: 4)]
            let pads = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard pads == 0 || (last && pads <= 2) else { return nil }
            var group: UInt32 = 0
            for byte in quad.prefix(4 - pads) {
                guard let sextet = value(of: byte) else { return nil }
                group = group << 6 | UInt32(sextet)
            }
            group <<= UInt32(6 * pads)
            let bytes = [UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8),
                         UInt8(truncatingIfNeeded: group)]
            // A padded group's dropped bits must be zero (canonical form).
            guard bytes.suffix(pads).allSatisfy({ $0 == 0 }) else { return nil }
            out += bytes.prefix(3 - pads)
            index = text.index(index, offsetBy: 4)
        }
        return out.count <= maxBytes ? out : nil
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
