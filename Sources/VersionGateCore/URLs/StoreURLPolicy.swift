/// Which URLs may leave the library (docs/design.md, "The trust model"): as a store URL in a result, or
/// handed to `xdg-open`. Nothing is decoded or normalised before the check,
/// and an accepted URL is returned exactly as given, so accepting is
/// idempotent: what passed once passes again.
///
/// Only the schemes in `supportedSchemes` can ever be allowed, because only
/// their shapes are known and checked; `javascript:`, `file:`, `data:`,
/// `http:` … cannot be switched on by an option.
///
/// Hosts match exactly (compared lower-cased): `flathub.org` does not allow
/// `www.flathub.org` or `x.flathub.org`. A wildcard would also cover user
/// content, forgotten or taken-over subdomains; a launcher that needs another
/// name lists it. The host list applies to every URL that has a host
/// (`https:` and `itms-apps:`).
package struct StoreURLPolicy: Sendable, Equatable {
    package var allowedSchemes: Set<String>
    package var allowedHosts: Set<String>

    package static let supportedSchemes: Set<String> = ["https", "appstream", "snap", "itms-apps"]
    package static let standard = StoreURLPolicy(
        allowedSchemes: supportedSchemes,
        allowedHosts: ["flathub.org", "snapcraft.io", "apps.apple.com", "itunes.apple.com"])
    /// The hosts an `itms-apps:` URL may name (the App Store app's own).
    package static let appleHosts: Set<String> = ["itunes.apple.com", "apps.apple.com"]

    /// nil when `url` may be returned or opened, else a short reason.
    package func refusal(of url: String) -> String? {
        if let why = Self.characterRefusal(url) { return why }
        guard let colon = url.utf8.firstIndex(of: UInt8(ascii: ":")) else { return "not an absolute URL" }
        let scheme = String(url[..<colon])
        guard Self.isSchemeName(scheme) else { return "not an absolute URL" }
        let lowerScheme = scheme.lowercased()
        guard Self.supportedSchemes.contains(lowerScheme), allowedSchemes.contains(lowerScheme) else {
            return "scheme \(lowerScheme): is not allowed"
        }
        let rest = String(url[url.utf8.index(after: colon)...])
        switch lowerScheme {
        case "https": return httpsRefusal(rest)
        case "appstream": return Self.appstreamRefusal(rest)
        case "snap": return Self.snapRefusal(rest)
        default: return itmsAppsRefusal(rest)
        }
    }

    /// nil when `url` is an https URL of a valid shape to any host: the
    /// administrator's link (docs/design.md, "The administrator's policy"),
    /// which no operator's host list limits.
    package static func anyHostHTTPSRefusal(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("https://") else { return "not an https URL" }
        return StoreURLPolicy(allowedSchemes: [], allowedHosts: []).allowing(https: url).refusal(of: url)
    }

    /// This policy, and `url`'s https host as well.
    package func allowing(https url: String) -> StoreURLPolicy {
        guard url.lowercased().hasPrefix("https://") else { return self }
        var wider = self
        wider.allowedSchemes.insert("https")
        wider.allowedHosts.insert(URLAuthority(afterSlashes: url.dropFirst("https://".count)).text.lowercased())
        return wider
    }

    // MARK: - per scheme

    private func httpsRefusal(_ rest: String) -> String? {
        guard rest.hasPrefix("//") else { return "https URL needs //host" }
        switch authorityHost(rest) {
        case .failure(let why): return why.reason
        case .success: return nil
        }
    }

    /// `appstream:<component id>` only: the `appstream://` form loses the
    /// id's case in Qt-based handlers (protocols README §4.1), and `?alt=`
    /// is not needed for one app.
    private static func appstreamRefusal(_ rest: String) -> String? {
        guard !rest.hasPrefix("/") else { return "appstream URL must be appstream:<component id>" }
        return AppID.componentIDRefusal(rest).map { "appstream " + $0 }
    }

    /// `snap://<name>` or `snap:<name>`, nothing after the name.
    private static func snapRefusal(_ rest: String) -> String? {
        let name = rest.hasPrefix("//") ? String(rest.dropFirst(2)) : rest
        return AppID.snapNameRefusal(name)
    }

    /// `itms-apps://itunes.apple.com/app/id<digits>` or
    /// `itms-apps://itunes.apple.com/lookup?bundleId=<bundle id>`
    /// (apps.apple.com also accepted as the host).
    private func itmsAppsRefusal(_ rest: String) -> String? {
        guard rest.hasPrefix("//") else { return "itms-apps URL needs //host" }
        let host: String
        switch authorityHost(rest) {
        case .failure(let why): return why.reason
        case .success(let name): host = name
        }
        guard Self.appleHosts.contains(host) else { return "itms-apps host must be an Apple store host" }
        let path = rest.dropFirst(2 + host.utf8.count)
        if path.hasPrefix("/app/id") {
            let digits = String(path.dropFirst("/app/id".count))
            guard let id = Int64(decimal: digits), id > 0, digits.first != "0" else {
                return "itms-apps app id must be a positive number"
            }
            return nil
        }
        if path.hasPrefix("/lookup?bundleId=") {
            return AppID.bundleIDRefusal(String(path.dropFirst("/lookup?bundleId=".count))).map { "bundle " + $0 }
        }
        return "itms-apps URL must be /app/id<number> or /lookup?bundleId=<id>"
    }

    package struct Refusal: Error {
        package let reason: String
        package init(reason: String) { self.reason = reason }
    }

    /// The lower-cased host of `//authority…`, when it is an allowed name.
    private func authorityHost(_ rest: String) -> Result<String, Refusal> {
        let authority = URLAuthority(afterSlashes: rest.dropFirst(2))
        let text = authority.text.lowercased()
        guard !text.isEmpty else { return .failure(Refusal(reason: "has no host")) }
        guard !authority.hasUserInfo else { return .failure(Refusal(reason: "user information is not allowed")) }
        guard !text.contains("%") else { return .failure(Refusal(reason: "percent-encoded host is not allowed")) }
        guard !text.contains("["), !text.contains("]") else {
            return .failure(Refusal(reason: "IP address literals are not allowed"))
        }
        guard !text.contains(":") else { return .failure(Refusal(reason: "ports are not allowed")) }
        if let why = Self.hostNameRefusal(text) { return .failure(Refusal(reason: why)) }
        guard allowedHosts.contains(text) else { return .failure(Refusal(reason: "host \(text) is not allowed")) }
        return .success(text)
    }

    // MARK: - shared rules

    /// A DNS name (lower-case labels of `[a-z0-9-]`, no empty label, so no
    /// trailing dot) that a URL parser cannot read as an IPv4 address: per
    /// WHATWG, a host whose last label is a number (`1`, `0x7f`, `0177`) is
    /// one, which covers `127.0.0.1`, `2130706433`, `0x7f.1` and `127.1`.
    package static func hostNameRefusal(_ host: String) -> String? {
        let bytes = Array(host.utf8)
        guard (1...253).contains(bytes.count) else { return "host name must be 1-253 bytes" }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if let last = labels.last, isNumericLabel(last) { return "IP address literals are not allowed" }
        for label in labels {
            guard (1...63).contains(label.count),
                  label.allSatisfy({ ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") }),
                  label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else {
                return "host is not a valid name"
            }
        }
        return nil
    }

    private static func isNumericLabel(_ label: ArraySlice<UInt8>) -> Bool {
        if label.isEmpty { return false }
        if label.allSatisfy(ASCII.isDigit) { return true }
        let hexDigits = label.dropFirst(2)
        return label.count >= 2 && label.first == UInt8(ascii: "0")
            && (label.dropFirst().first == UInt8(ascii: "x") || label.dropFirst().first == UInt8(ascii: "X"))
            && hexDigits.allSatisfy { ASCII.isDigit($0) || (0x61...0x66).contains($0 | 0x20) }
    }

    /// RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`. So an
    /// argument-like `-x` or an empty scheme never passes.
    private static func isSchemeName(_ text: String) -> Bool {
        guard let first = text.utf8.first, ASCII.isLetter(first) else { return false }
        return text.utf8.allSatisfy {
            ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: ".")
        }
    }

    /// Length, and only characters RFC 3986 allows in a URL; `%` must start a
    /// `%XX` escape that is not a control character.
    private static func characterRefusal(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        guard !bytes.isEmpty, bytes.count <= TransportURL.maxBytes else { return "must be 1-\(TransportURL.maxBytes) bytes" }
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case ...0x20, 0x7F: return "contains spaces or control characters"
            case 0x80...: return "contains non-ASCII characters"
            case UInt8(ascii: "\\"): return "contains a backslash"
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let high = ASCII.hexValue(bytes[index + 1]),
                      let low = ASCII.hexValue(bytes[index + 2]) else { return "has a malformed %-escape" }
                let decoded = high << 4 | low
                if decoded < 0x20 || decoded == 0x7F { return "percent-encodes a control character" }
            case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "^"), UInt8(ascii: "`"),
                 UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return "contains a character not allowed in URLs"
            default: break
            }
        }
        return nil
    }
}

// MARK: - the allowed_url_schemes / allowed_url_hosts options

extension StoreURLPolicy {
    package static let maxListEntries = 64

    /// A comma-separated list (spaces around entries ignored, compared
    /// lower-cased) of 1-253-byte tokens of `[a-z0-9.+-]`, or nil when any
    /// entry is empty or malformed: `"a,,b"` is a typo, not two entries.
    /// The empty string is the empty set (e.g. "no https hosts at all").
    package static func parseList(_ commaSeparated: String) -> Set<String>? {
        let whole = ASCII.trimmingBlanks(commaSeparated)
        if whole.isEmpty { return [] }
        let entries = whole.split(separator: ",", omittingEmptySubsequences: false).map { ASCII.trimmingBlanks($0).lowercased() }
        guard entries.count <= maxListEntries else { return nil }
        for entry in entries {
            guard (1...253).contains(entry.utf8.count), entry.utf8.allSatisfy({
                ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
            }) else { return nil }
        }
        return Set(entries)
    }

    /// `allowed_url_schemes`: a list of supported schemes only (a trailing
    /// `:` is tolerated, `https:` = `https`).
    package static func parseSchemes(_ commaSeparated: String) -> Set<String>? {
        let withoutColons = join(commaSeparated.split(separator: ",", omittingEmptySubsequences: false)
            .map { piece in ASCII.trimmingBlanks(piece).hasSuffix(":") ? String(ASCII.trimmingBlanks(piece).dropLast()) : String(piece) },
            separator: ",")
        guard let list = parseList(withoutColons), list.isSubset(of: supportedSchemes) else { return nil }
        return list
    }

    /// `allowed_url_hosts`: host names only (no addresses, ports or dots at
    /// either end).
    package static func parseHosts(_ commaSeparated: String) -> Set<String>? {
        guard let list = parseList(commaSeparated), list.allSatisfy({ hostNameRefusal($0) == nil }) else { return nil }
        return list
    }
}
