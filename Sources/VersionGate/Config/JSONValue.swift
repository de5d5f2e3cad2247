import FoundationEssentials

/// Any JSON value, read with FoundationEssentials' JSONDecoder.
indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// As JSONDecoder reads it; never a version (`2.10` would be 2.1).
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Duplicate keys: JSONDecoder keeps one (the first, as measured).
    case object([String: JSONValue])

    /// Deepest nesting accepted. JSONDecoder's scanner and our `init(from:)`
    /// both recurse, and we may run on a host thread with a small stack;
    /// a gate document needs 7 levels, a Firebase template about 10.
    static let maxDepth = 32

    /// The one JSON entry point: UTF-8 bytes (a leading BOM is skipped) → value.
    static func decode(_ bytes: [UInt8]) throws(GateDocumentError) -> JSONValue {
        try checkText(bytes)
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .invalidJSON(detail: Self.detail(of: error))
        }
    }

    /// Refuses what JSONDecoder would wrongly take or choke on: non-UTF-8
    /// (it would guess UTF-16/32), a trailing comma (it accepts `[1,]` and
    /// `{"a":1,}`), nesting deeper than `maxDepth`. Not a parser: strings are
    /// tracked only so that what they contain is not counted.
    private static func checkText(_ bytes: [UInt8]) throws(GateDocumentError) {
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else {
            throw .notUTF8
        }
        var depth = 0, inString = false, escaped = false, afterComma = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if afterComma { throw .invalidJSON(detail: "trailing comma") }
                if depth > 0 { depth -= 1 }
            case UInt8(ascii: ","):
                afterComma = true
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                inString = true
            default:
                break
            }
            afterComma = false
        }
    }

    /// What went wrong, where we know it. On Linux JSONDecoder reports every
    /// syntax error as the same text, without position or underlying error.
    private static func detail(of error: any Error) -> String {
        guard let unreadable = error as? Unreadable else { return "syntax error" }
        let place = unreadable.path.isEmpty ? "the top level" : unreadable.path
        // The path quotes the input: printable ASCII only, and short.
        let printable = place.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
        return "unreadable string, number or key at \(String(printable.prefix(120)))"
    }
}

extension JSONValue: Decodable {
    /// JSONDecoder checks a number's or string's syntax only when it is read,
    /// so every one is read. Kinds are probed most common first: each miss
    /// costs a thrown error.
    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null; return }
        do { self = .string(try single.decode(String.self)); return }
        catch DecodingError.typeMismatch {} catch { throw Unreadable(decoder.codingPath) }
        do { self = .number(try single.decode(Double.self)); return }
        catch DecodingError.typeMismatch {} catch { throw Unreadable(decoder.codingPath) }
        do { self = .bool(try single.decode(Bool.self)); return } catch DecodingError.typeMismatch {}
        do {
            let object = try decoder.container(keyedBy: AnyKey.self)
            var members: [String: JSONValue] = [:]
            for key in object.allKeys {
                members[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
            return
        } catch DecodingError.typeMismatch {} catch let error as Unreadable { throw error } catch {
            throw Unreadable(decoder.codingPath)  // a key that is not valid Unicode
        }
        var array = try decoder.unkeyedContainer()
        var items: [JSONValue] = []
        while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
        self = .array(items)
    }

    /// A string (bad escape, lone surrogate), number (bad syntax, out of
    /// Double's range) or key that JSONDecoder could not read. A type of our
    /// own, so JSONDecoder passes it through unwrapped.
    private struct Unreadable: Error {
        let path: String
        init(_ codingPath: [any CodingKey]) {
            var path = ""
            for key in codingPath {
                if let index = key.intValue { path += "[\(index)]" }
                else { path += (path.isEmpty ? "" : ".") + key.stringValue }
            }
            self.path = path
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension JSONValue {
    /// The member `key` of an object; nil for other values or a missing key.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }
}
