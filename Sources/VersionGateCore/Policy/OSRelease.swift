/// os-release(5): `KEY=VALUE` lines, values optionally in single or double
/// quotes (backslash escapes `\"`, `\\`, `` \` ``, `\$` inside double
/// quotes), `#` comments. Pure; what it cannot read it leaves out.
package enum OSRelease {
    package static func parse(_ bytes: [UInt8]) -> [String: String] {
        var values: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = line[line.startIndex..<equals]
            guard !key.isEmpty, key.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") })
            else { continue }
            guard let value = unquoted(Array(line[(equals + 1)...])) else { continue }
            values[String(decoding: key, as: UTF8.self)] = value
        }
        return values
    }

    private static func unquoted(_ raw: [UInt8]) -> String? {
        var value = raw
        while let last = value.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") || last == UInt8(ascii: "\r") {
            value.removeLast()
        }
        guard let first = value.first, first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") else {
            return String(validating: value, as: UTF8.self)
        }
        guard value.count >= 2, value.last == first else { return nil }
        let inner = value[1..<(value.count - 1)]
        if first == UInt8(ascii: "'") { return String(validating: inner, as: UTF8.self) }
        var out: [UInt8] = []
        var escaped = false
        for byte in inner {
            if escaped {
                out.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// `ID` then each word of `ID_LIKE`, for the `os=` requirement.
    package static func ids(_ values: [String: String]) -> [String] {
        ([values["ID"]].compactMap { $0 } + (values["ID_LIKE"] ?? "").split(separator: " ").map(String.init))
            .filter { !$0.isEmpty }
    }
}
