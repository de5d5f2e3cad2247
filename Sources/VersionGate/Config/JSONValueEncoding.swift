import FoundationEssentials

/// Writing JSON values (cache and state files) with JSONEncoder.
extension JSONValue: Encodable {
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let values):
            var unkeyed = encoder.unkeyedContainer()
            for value in values { try unkeyed.encode(value) }
        case .object(let members):
            var keyed = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members { try keyed.encode(value, forKey: MemberKey(key)) }
        }
    }

    /// Compact UTF-8 JSON with sorted keys; `{}` if encoding fails (it cannot
    /// for values built in memory, short of a non-finite number).
    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { Array($0) } ?? Array("{}".utf8)
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
