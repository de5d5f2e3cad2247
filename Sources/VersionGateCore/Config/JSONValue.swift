/// Any JSON value, as JSONReader reads it and JSONWriter writes it.
package indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Never a version (`2.10` would be 2.1): versions are strings.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Duplicate keys: the first one is kept.
    case object([String: JSONValue])

    /// Deepest nesting accepted: the reader recurses, and may run on a host
    /// thread with a small stack; a gate document needs 7 levels, a
    /// Firebase template about 10.
    package static let maxDepth = 32

    /// The one JSON entry point: UTF-8 bytes (a leading BOM is skipped) → value.
    package static func decode(_ bytes: [UInt8]) throws(GateDocumentError) -> JSONValue {
        try JSONReader.read(bytes)
    }

    /// Compact UTF-8 JSON with sorted keys.
    package func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}

extension JSONValue {
    /// The member `key` of an object; nil for other values or a missing key.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }
}
