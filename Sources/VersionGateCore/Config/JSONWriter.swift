/// Compact JSON text for what the library writes (result JSON, cache and
/// state files), written here so the library needs no Foundation. Objects
/// built with `member` keep the order they are written in; `JSONValue`
/// objects are written with sorted keys, so a file's bytes depend only on
/// its content.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init() {}

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func member(_ key: String, _ value: String?) {
        member(key, value.map(JSONValue.string) ?? .null)
    }

    package mutating func member(_ key: String, _ value: Bool) {
        member(key, .bool(value))
    }

    /// Exact for every Int64 (a Double would round past 2^53).
    package mutating func member(_ key: String, _ value: Int64?) {
        guard let value else { return member(key, .null) }
        name(key)
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func member(_ key: String, _ value: JSONValue) {
        name(key)
        write(value)
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: separate(); literal("null")
        case .bool(let flag): separate(); literal(flag ? "true" : "false")
        case .number(let number): separate(); self.number(number)
        case .string(let text): separate(); string(text)
        case .array(let items):
            separate()
            bytes.append(UInt8(ascii: "["))
            needsComma = false
            for item in items { write(item) }
            bytes.append(UInt8(ascii: "]"))
            needsComma = true
        case .object(let members):
            beginObject()
            for key in members.keys.sorted() {
                if let member = members[key] { self.member(key, member) }
            }
            endObject()
        }
    }

    private mutating func name(_ key: String) {
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Before every value: a comma if one came before it at this level.
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    private mutating func literal(_ word: String) {
        bytes.append(contentsOf: word.utf8)
    }

    /// Whole numbers as integers (`3600`, not `3600.0`); others in Swift's
    /// shortest round-trip form, which is JSON's grammar for finite values.
    /// JSON has no infinity or NaN: those are written as null.
    private mutating func number(_ value: Double) {
        if !value.isFinite {
            bytes.append(contentsOf: "null".utf8)
        } else if value == value.rounded(.towardZero), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Quotes, backslashes and control characters escaped; everything else,
    /// `/` and non-ASCII included, as UTF-8.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        // The common case, nothing to escape, as one copy of contiguous bytes.
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true { return }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
    }
}
