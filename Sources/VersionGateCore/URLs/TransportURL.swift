/// The URL rules every request and every redirect target must pass
/// (docs/design.md, "The trust model"): https, or plain http to a loopback address (tests only); a
/// host and no user information; no spaces or control characters.
package struct TransportURL: Sendable, Equatable {
    package let scheme: String      // "https" or "http", lower-case
    package let host: String        // lower-case; IPv6 without brackets
    /// As written; nil for the scheme's default.
    package let port: String?

    /// Same scheme, host and port: where credentials may follow.
    package func isSameOrigin(_ other: TransportURL) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    /// The longest URL anything here accepts, requested or returned.
    package static let maxBytes = 2048

    package static func check(_ url: String) -> Result<TransportURL, TransportError> {
        func refuse(_ why: String) -> Result<TransportURL, TransportError> {
            .failure(TransportError(kind: .refusedURL, message: "\(OneLine.quoted(url)) refused: \(why)"))
        }
        let bytes = url.utf8
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return refuse("must be 1-\(maxBytes) bytes") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return refuse("contains spaces, control or non-ASCII characters")
        }
        // Printable ASCII from here on, so bytes are characters (and cheaper).
        let text = Array(bytes)
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), text[colon...].starts(with: "://".utf8) else {
            return refuse("not an absolute URL")
        }
        let scheme = String(decoding: text[..<colon], as: UTF8.self).lowercased()
        let authority = URLAuthority(afterSlashes: String(decoding: text[(colon + 3)...], as: UTF8.self)[...])
        guard !authority.hasUserInfo else { return refuse("user information is not allowed") }
        guard let parts = authority.hostAndPort, !parts.host.isEmpty else { return refuse("no host") }
        let host = parts.host
        switch scheme {
        case "https": break
        case "http" where isLoopback(host): break
        case "http": return refuse("plain http is allowed only to loopback addresses")
        default: return refuse("scheme \(scheme) is not allowed")
        }
        return .success(TransportURL(scheme: scheme, host: host, port: parts.port.map(String.init)))
    }

    /// A redirect may only go where a request may, keeping its scheme.
    package static func checkRedirect(from: TransportURL, to target: String) -> Result<TransportURL, TransportError> {
        switch check(target) {
        case .failure(let error):
            return .failure(TransportError(kind: .refusedRedirect, message: "redirect to \(error.message)"))
        case .success(let next) where next.scheme != from.scheme:
            return .failure(TransportError(kind: .refusedRedirect,
                message: "redirect to \(OneLine.quoted(target)) refused: it changes the scheme from \(from.scheme)"))
        case .success(let next):
            return .success(next)
        }
    }

    /// Literal loopback addresses only: a name could resolve anywhere.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }
}
