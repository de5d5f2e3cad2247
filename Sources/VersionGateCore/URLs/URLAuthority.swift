/// The authority of a hierarchical URL (`scheme://authority/path`), split
/// in one place for both rules that judge one: the network URL rule
/// (TransportURL) and the store URL policy (StoreURLPolicy).
package struct URLAuthority: Sendable {
    /// As written: after the "//", up to the first "/", "?" or "#".
    package let text: Substring

    /// `rest` starts right after the "//".
    package init(afterSlashes rest: Substring) {
        text = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    package var hasUserInfo: Bool { text.contains("@") }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`: the host lower-cased
    /// (without brackets) and the port as written; nil when the port is not
    /// 1-65535 or a bracket is unclosed.
    package var hostAndPort: (host: String, port: Substring?, bracketed: Bool)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
            return (text[text.index(after: text.startIndex)..<close].lowercased(),
                    rest.isEmpty ? nil : rest.dropFirst(), true)
        }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 1 || Self.isPort(":" + parts[1]) else { return nil }
        return (parts[0].lowercased(), parts.count == 2 ? parts[1] : nil, false)
    }

    /// ":1" … ":65535"
    private static func isPort(_ text: some StringProtocol) -> Bool {
        let digits = text.utf8.dropFirst()
        guard text.hasPrefix(":"), (1...5).contains(digits.count) else { return false }
        var value = 0
        for digit in digits {
            guard ASCII.isDigit(digit) else { return false }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return (1...65535).contains(value)
    }
}
