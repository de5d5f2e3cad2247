/// Where a gate document lives, as the "source" option spells it: a plain
/// path, or a `file://` URL (`file:///abs/path`, `file://localhost/abs/path`)
/// whose path is percent-decoded.
enum SourceLocation {
    static func path(from value: String) throws(GateFailure) -> String {
        guard !value.isEmpty else { throw .invalidArgument("source is empty") }
        guard !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .invalidArgument("source contains control characters")
        }
        let lower = value.lowercased()
        if lower.hasPrefix("file://") {
            var rest = Substring(value.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            guard rest.hasPrefix("/") else {
                throw .invalidArgument("source \"\(value)\": a file URL must be file:///absolute/path")
            }
            guard let path = percentDecoded(rest), !path.utf8.contains(0) else {
                throw .invalidArgument("source \"\(value)\": bad percent-encoding")
            }
            return path
        }
        // "javascript:…", "data:…", "ftp://…": a URL we do not read, not a relative file name.
        let scheme = value.prefix { $0 != ":" && $0 != "/" }
        if scheme.count < value.count, value[scheme.endIndex] == ":", let first = scheme.first, first.isASCII,
           first.isLetter, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) {
            throw .invalidArgument("source \"\(value.prefix(80))\": unsupported scheme (use a path, file://, https:// or firebase://)")
        }
        return value
    }

    static func percentDecoded(_ s: Substring) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var bytes = s.utf8.makeIterator()
        while let b = bytes.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let hi = bytes.next().flatMap(hexValue), let lo = bytes.next().flatMap(hexValue) else { return nil }
            out.append(hi << 4 | lo)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
