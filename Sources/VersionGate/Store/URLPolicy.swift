/// Which URLs may leave the library. For now: an explicit `https` URL from
/// the config with a plain host name. (The store issue widens this to the
/// store schemes and a host allow-list.)
enum URLPolicy {
    static let maxBytes = 2048

    /// nil when `url` is acceptable, else why it is refused.
    static func refusal(of url: String) -> String? {
        let bytes = Array(url.utf8)
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return "must be 1-\(maxBytes) bytes" }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "contains spaces, control or non-ASCII characters"
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") else { return "only https URLs are allowed" }
        let authority = lower.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { return "has no host" }
        guard !authority.contains("@") else { return "must not contain user information" }
        guard !authority.contains(":") else { return "must not name a port" }
        guard !authority.contains("\\"), !authority.hasPrefix("["),
              authority.contains(where: { $0.isLetter }) else { return "host must be a name, not an address" }
        return nil
    }
}
