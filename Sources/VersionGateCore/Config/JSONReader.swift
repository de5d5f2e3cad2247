/// Strict RFC 8259 reader over UTF-8 bytes, written here so the library needs
/// no Foundation (cold start, BENCHMARKS.md). Nothing beyond the RFC is
/// accepted: no trailing commas, comments, leading zeros, lone surrogates,
/// raw control characters, or numbers too large for a Double (ones too
/// small for it read as 0). Errors say what and where (line, byte column).
package struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// The whole input is one value, optionally after a UTF-8 BOM and
    /// surrounded by whitespace.
    package static func read(_ bytes: [UInt8]) throws(GateDocumentError) -> JSONValue {
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else { throw .notUTF8 }
        var reader = JSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func value() throws(GateDocumentError) -> JSONValue {
        skipWhitespace()
        guard let byte = peek() else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describe(byte))")
        }
    }

    /// Duplicate keys: the first one is kept.
    private mutating func object() throws(GateDocumentError) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        if close(UInt8(ascii: "}")) { return .object(members) }  // empty
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw error(peek() == UInt8(ascii: "}") ? "trailing comma" : "expected a string key")
            }
            let key = try string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            let member = try value()
            if members[key] == nil { members[key] = member }
            if try endOfList(closer: UInt8(ascii: "}")) { return .object(members) }
        }
    }

    private mutating func array() throws(GateDocumentError) -> JSONValue {
        try enter()
        var items: [JSONValue] = []
        if close(UInt8(ascii: "]")) { return .array(items) }  // empty
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { throw error("trailing comma") }
            items.append(try value())
            if try endOfList(closer: UInt8(ascii: "]")) { return .array(items) }
        }
    }

    /// Steps over the opening bracket; deeper than `JSONValue.maxDepth` is refused
    /// before it costs stack.
    private mutating func enter() throws(GateDocumentError) {
        depth += 1
        if depth > JSONValue.maxDepth { throw .tooDeep(limit: JSONValue.maxDepth) }
        index += 1
    }

    /// Steps over `closer` if it comes next (after whitespace), leaving the
    /// container; false, and nothing consumed but whitespace, otherwise.
    private mutating func close(_ closer: UInt8) -> Bool {
        skipWhitespace()
        guard peek() == closer else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After a member or item: true at the closer (consumed), false after a comma.
    private mutating func endOfList(closer: UInt8) throws(GateDocumentError) -> Bool {
        if close(closer) { return true }
        switch peek() {
        case UInt8(ascii: ",")?:
            index += 1
            return false
        case nil:
            throw error("unexpected end of input")
        case let byte?:
            throw error("expected ',' or '\(Character(Unicode.Scalar(closer)))', found \(describe(byte))")
        }
    }

    private mutating func string() throws(GateDocumentError) -> String {
        let start = index
        index += 1  // the opening quote
        var unescaped: [UInt8] = []  // used once an escape is met
        var runStart = index
        while true {
            guard let byte = peek() else {
                index = start
                throw error("unterminated string")
            }
            switch byte {
            case UInt8(ascii: "\""):
                // Valid UTF-8 (checked up front), so decoding repairs nothing.
                defer { index += 1 }
                if unescaped.isEmpty {
                    return String(decoding: bytes[runStart..<index], as: UTF8.self)
                }
                unescaped.append(contentsOf: bytes[runStart..<index])
                return String(decoding: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                unescaped.append(contentsOf: bytes[runStart..<index])
                UTF8.encode(try escape()) { unescaped.append($0) }
                runStart = index
            case ..<0x20:
                throw error("raw control character \(describe(byte)) in a string")
            default:
                index += 1
            }
        }
    }

    /// At a backslash: one escape, a surrogate pair counting as one.
    private mutating func escape() throws(GateDocumentError) -> Unicode.Scalar {
        index += 1
        guard let byte = peek() else { throw error("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default:
            index -= 2
            throw error("invalid escape sequence")
        }
        let escapeStart = index - 2
        let unit = try hex4()
        switch unit {
        case 0xD800..<0xDC00:
            guard peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") else { break }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { break }
            let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            if let scalar = Unicode.Scalar(value) { return scalar }
        case 0xDC00..<0xE000:
            break
        default:
            if let scalar = Unicode.Scalar(unit) { return scalar }
        }
        index = escapeStart
        throw error("lone surrogate in \\u escape")
    }

    private mutating func hex4() throws(GateDocumentError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = ASCII.hexValue(byte).map(UInt32.init) else { throw error("expected 4 hex digits after \\u") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, checked here
    /// so that Double's own parser (which takes `inf`, hex, `+1`) only ever
    /// sees this grammar.
    private mutating func number() throws(GateDocumentError) -> Double {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw error("leading zero in a number") }
        } else if digits() == 0 {
            throw error("expected a digit")
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("expected a digit after '.'") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            index = start
            throw error("number out of range")
        }
        return number
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek(), isDigit(byte) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(GateDocumentError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw error("unexpected \(describe(bytes[index]))")
        }
        index += expected.count
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A byte as an operator can read it in a one-line message.
    private func describe(_ byte: UInt8) -> String {
        if byte > 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }

    /// Where: line and column (in bytes, 1-based) of `index`.
    private func error(_ what: String) -> GateDocumentError {
        var line = 1, lineStart = 0
        for (offset, byte) in bytes[..<min(index, bytes.count)].enumerated() where byte == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        return .invalidJSON(detail: "\(what) at line \(line), column \(index - lineStart + 1)")
    }
}
