/// How a request finds its proxy (docs/design.md, "The desktop's proxy"):
/// the option `proxy` wins, then the environment (libcurl's variables),
/// then the desktop (GIO's resolver, in the helper); `no_proxy` applies to
/// whichever was chosen, and 127.0.0.1, ::1 and localhost never use one.
/// Pure: the helper supplies the environment and the desktop's answer.
package enum ProxyRules {
    /// The option `proxy`: `auto` (the order above), `none`, or a proxy URL.
    package enum Setting: Sendable, Equatable {
        case auto
        case none
        case url(String)

        package init(parsing text: String) throws(GateFailure) {
            switch text {
            case "auto": self = .auto
            case "none": self = .none
            default:
                guard let why = ProxyRules.urlRefusal(text) else { self = .url(text); return }
                throw .invalidArgument("proxy \(OneLine.quoted(ProxyRules.redacted(text), max: 80)): \(why) "
                                       + "(auto, none, or http://, https://, socks5:// or socks5h://HOST:PORT)")
            }
        }

        package var text: String {
            switch self {
            case .auto: "auto"
            case .none: "none"
            case .url(let url): url
            }
        }
    }

    /// Where the chosen proxy came from, as the log and explain name it.
    package enum Origin: String, Sendable, Equatable {
        case option, environment, desktop
    }

    /// nil when `text` is a proxy URL libcurl is given as is.
    package static func urlRefusal(_ text: String) -> String? {
        guard let scheme = scheme(of: text), ["http", "https", "socks5", "socks5h"].contains(scheme) else {
            return "not a proxy URL"
        }
        guard let host = host(of: text), !host.isEmpty else { return "it names no host" }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "it has spaces or control characters" }
        return nil
    }

    /// The proxy for a request to `url`, and where it came from; nil: direct.
    /// `environment` reads a variable (the helper's own).
    package static func choose(url: String, setting: Setting, environment: (String) -> String?,
                               desktop: () -> String?) -> (proxy: String, origin: Origin)? {
        let targetHost = host(of: url) ?? ""
        if ["127.0.0.1", "::1", "[::1]", "localhost"].contains(targetHost.lowercased()) { return nil }
        let chosen: (String, Origin)?
        switch setting {
        case .none: return nil
        case .url(let proxy): chosen = (proxy, .option)
        case .auto:
            if let named = fromEnvironment(url: url, environment) {
                chosen = (named, .environment)
            } else if let answer = desktop(), answer != "direct://" {
                chosen = (answer, .desktop)
            } else {
                chosen = nil
            }
        }
        guard let chosen else { return nil }
        let list = environment("no_proxy").flatMap { $0.isEmpty ? nil : $0 } ?? environment("NO_PROXY") ?? ""
        return bypasses(host: targetHost, noProxy: list) ? nil : chosen
    }

    /// libcurl's variables: `http_proxy` (lower case only) for http,
    /// `https_proxy` or `HTTPS_PROXY` for https, then `all_proxy`/`ALL_PROXY`.
    private static func fromEnvironment(url: String, _ environment: (String) -> String?) -> String? {
        let names = scheme(of: url) == "https" ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
            : ["http_proxy", "all_proxy", "ALL_PROXY"]
        for name in names {
            if let value = environment(name), !value.isEmpty { return value }
        }
        return nil
    }

    /// `no_proxy` as libcurl reads it: `*` is every host; else comma- (or
    /// space-) separated names, each matching itself and its subdomains
    /// (a leading dot optional), or an exact address.
    package static func bypasses(host: String, noProxy: String) -> Bool {
        let host = host.lowercased().trimmingBrackets
        for item in noProxy.split(whereSeparator: { $0 == "," || $0 == " " }) {
            var name = item.lowercased().trimmingBrackets
            if name == "*" { return true }
            if name.hasPrefix(".") { name.removeFirst() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// `scheme://***@host:port` when the URL carries credentials, else
    /// `scheme://host:port`: what the log, explain and the result show.
    package static func redacted(_ proxy: String) -> String {
        guard let separator = schemeSeparator(proxy) else { return proxy }
        let scheme = proxy[..<separator.lowerBound]
        var rest = proxy[separator.upperBound...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { return "\(scheme)://***@\(rest[rest.index(after: at)...])" }
        return "\(scheme)://\(rest)"
    }

    private static func scheme(of url: String) -> String? {
        guard let separator = schemeSeparator(url) else { return nil }
        return url[..<separator.lowerBound].lowercased()
    }

    /// Where the first "://" is (no Foundation, no _StringProcessing).
    private static func schemeSeparator(_ url: String) -> Range<String.Index>? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        return colon..<url.index(colon, offsetBy: 3)
    }

    /// The host of `url` (credentials and port left out), brackets kept for IPv6.
    private static func host(of url: String) -> String? {
        guard let separator = schemeSeparator(url) else { return nil }
        var authority = url[separator.upperBound...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { authority = authority[..<end] }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[...close])
        }
        if let colon = authority.lastIndex(of: ":") { authority = authority[..<colon] }
        return String(authority)
    }
}

private extension String {
    var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
