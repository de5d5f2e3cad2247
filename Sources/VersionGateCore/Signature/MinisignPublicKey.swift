/// A minisign public key: the base64 line of `minisign.pub`, which holds
/// "Ed", an 8-byte key id and the 32-byte Ed25519 key.
package struct MinisignPublicKey: Sendable, Equatable {
    package let keyID: [UInt8]
    package let key: [UInt8]

    /// The key id as minisign prints it ("public key 122FB2BF384031E3"):
    /// the 8 bytes read as a little-endian number, in upper-case hex.
    package var keyIDText: String { Self.keyIDText(keyID) }

    package static func keyIDText(_ id: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for byte in id.reversed() { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// nil unless `line` is exactly one canonical base64 public key.
    package static func parse(_ line: Substring) -> MinisignPublicKey? {
        guard let raw = StrictBase64.decode(ArraySlice(line.utf8), maxBytes: 42), raw.count == 42,
              raw[0] == UInt8(ascii: "E"), raw[1] == UInt8(ascii: "d") else { return nil }
        return MinisignPublicKey(keyID: Array(raw[2..<10]), key: Array(raw[10..<42]))
    }

    /// The `trusted_keys` option: one or more keys separated by commas
    /// (spaces around each allowed), so an old and a new key can both be
    /// trusted while keys rotate. nil when any item is not a key.
    package static func parseList(_ text: String) -> [MinisignPublicKey]? {
        var keys: [MinisignPublicKey] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = item.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            guard let key = parse(Substring(String(trimmed))) else { return nil }
            keys.append(key)
        }
        return keys.isEmpty ? nil : keys
    }
}
