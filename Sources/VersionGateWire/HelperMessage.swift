import VersionGateCore

/// The helper's wire form (docs/design.md, "The helper's protocol"):
/// `name=value` records in order, each ended by a NUL. HelperRequest and
/// HelperAnswer alone write and read them. No value
/// holds a NUL: options are C strings, and so are the environment's
/// values; a cached config is JSON.
package struct HelperMessage: Sendable, Equatable {
    package struct Record: Sendable, Equatable {
        package let name: String
        package let value: String
    }

    package private(set) var records: [Record] = []

    /// Larger than anything either side sends: a request's options (at most
    /// 4 KiB each) and an answer's cached config (CachedConfig.maxFileBytes).
    package static let maxBytes = 4 << 20

    package init() {}

    package mutating func add(_ name: String, _ value: String) {
        records.append(Record(name: name, value: value))
    }

    /// The first value named `name`.
    package func value(_ name: String) -> String? { records.first { $0.name == name }?.value }

    package func values(_ name: String) -> [String] { records.filter { $0.name == name }.map(\.value) }

    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for record in records {
            bytes += record.name.utf8
            bytes.append(UInt8(ascii: "="))
            // A NUL would end the record early: it is dropped, never sent.
            bytes += record.value.utf8.lazy.filter { $0 != 0 }
            bytes.append(0)
        }
        return bytes
    }

    /// nil unless every record is UTF-8 `name=value` ended by a NUL.
    package static func decode(_ bytes: [UInt8]) -> HelperMessage? {
        guard bytes.count <= maxBytes else { return nil }
        var message = HelperMessage()
        guard !bytes.isEmpty else { return message }
        guard bytes.last == 0 else { return nil }
        for piece in bytes.dropLast().split(separator: 0, omittingEmptySubsequences: false) {
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")), equals != piece.startIndex,
                  let name = String(validating: piece[..<equals], as: UTF8.self),
                  let value = String(validating: piece[(equals + 1)...], as: UTF8.self) else { return nil }
            message.add(name, value)
        }
        return message
    }

    /// A non-negative decimal that fits an Int.
    package static func integer(_ text: String) -> Int? {
        Int64(decimal: text).flatMap { Int(exactly: $0) }
    }

    /// A "Name: value" header line, as both ends write them.
    package static func header(_ line: String) -> (name: String, value: String) {
        let (name, value) = split(line, at: ":")
        return (name, String(value.drop { $0 == " " }))
    }

    /// `text` split at the first `separator` (a value may hold more); all
    /// of it and "" when there is none.
    package static func split(_ text: String, at separator: Character) -> (String, String) {
        guard let found = text.firstIndex(of: separator) else { return (text, "") }
        return (String(text[..<found]), String(text[text.index(after: found)...]))
    }
}
