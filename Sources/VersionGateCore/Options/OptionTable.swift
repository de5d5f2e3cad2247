/// One option key: how its default is read and how a value is checked and
/// stored (its documentation is in declarations/options.decl).
package struct OptionSpec: Sendable {
    package typealias Apply = @Sendable (inout ClientOptions, String) throws(GateFailure) -> Void
    package let key: String
    /// The option's default as a value it accepts, read from fresh options
    /// (where the default is written); nil when unset means none.
    package let read: (@Sendable (ClientOptions) -> String)?
    package let apply: Apply

    init(key: String, read: (@Sendable (ClientOptions) -> String)? = nil, apply: @escaping Apply) {
        (self.key, self.read, self.apply) = (key, read, apply)
    }
}

extension ClientOptions {
    private static let maxSeconds: Int64 = 30 * 86_400

    package static let table: [OptionSpec] = [
        OptionSpec(key: "source") { o, v throws(GateFailure) in
            o.source = try SourceSpec.parse(v)
        },
        OptionSpec(key: "platform", read: { $0.platform }) { o, v throws(GateFailure) in
            o.platform = try token("platform", v, 32, lowercaseOnly: true)
        },
        OptionSpec(key: "locale") { o, v throws(GateFailure) in
            o.locale = try token("locale", v, 64, extra: "_.@-")
        },
        OptionSpec(key: "session_scope", read: { $0.sessionScope.rawValue }) {
            o, v throws(GateFailure) in
            o.sessionScope = try choice("session_scope", v)
        },
        OptionSpec(key: "log_level", read: { $0.logLevel.rawValue }) {
            o, v throws(GateFailure) in
            o.logLevel = try choice("log_level", v)
        },
        OptionSpec(key: "remind_after_s", read: { String($0.remindAfterSeconds) }) {
            o, v throws(GateFailure) in
            o.remindAfterSeconds = try number("remind_after_s", v, 0...31_536_000)
        },
        OptionSpec(key: "dry_run", read: { $0.dryRun ? "1" : "0" }) {
            o, v throws(GateFailure) in
            o.dryRun = try number("dry_run", v, 0...1) == 1
        },
        OptionSpec(key: "installed_version_from") {
            o, v throws(GateFailure) in
            o.installedVersionFrom = try InstalledVersionSource.parse(v).get()
        },
        OptionSpec(key: "firebase_project_id") { o, v throws(GateFailure) in
            o.firebaseProjectID = try token("firebase_project_id", v, 64, extra: "-")
        },
        OptionSpec(key: "firebase_api_key") { o, v throws(GateFailure) in
            o.firebaseAPIKey = try token("firebase_api_key", v, 256, extra: "-_")
        },
        OptionSpec(key: "firebase_app_id") { o, v throws(GateFailure) in
            o.firebaseAppID = try token("firebase_app_id", v, 256, extra: ":-_.")
        },
        OptionSpec(key: "firebase_endpoint", read: { $0.firebaseEndpoint }) { o, v throws(GateFailure) in
            o.firebaseEndpoint = try endpoint("firebase_endpoint", v)
        },
        OptionSpec(key: "firebase_realtime_endpoint", read: { $0.firebaseRealtimeEndpoint }) { o, v throws(GateFailure) in
            o.firebaseRealtimeEndpoint = try endpoint("firebase_realtime_endpoint", v)
        },
        OptionSpec(key: "watch_interval_s", read: { String($0.watchIntervalSeconds) }) { o, v throws(GateFailure) in
            o.watchIntervalSeconds = Int(try number("watch_interval_s", v, 5...86_400))
        },
        OptionSpec(key: "firebase_installations_endpoint", read: { $0.firebaseInstallationsEndpoint }) { o, v throws(GateFailure) in
            o.firebaseInstallationsEndpoint = try endpoint("firebase_installations_endpoint", v)
        },
        OptionSpec(key: "package_name") { o, v throws(GateFailure) in
            o.packageName = try token("package_name", v, 256, extra: "._-")
        },
        OptionSpec(key: "timeout_ms", read: { String($0.timeoutMs) }) { o, v throws(GateFailure) in
            o.timeoutMs = Int(try number("timeout_ms", v, 1...60_000))
        },
        OptionSpec(key: "cache_ttl_s", read: { String($0.cacheTTLSeconds) }) {
            o, v throws(GateFailure) in
            o.cacheTTLSeconds = try number("cache_ttl_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "max_stale_s", read: { String($0.maxStaleSeconds) }) {
            o, v throws(GateFailure) in
            o.maxStaleSeconds = try number("max_stale_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "stale_while_revalidate_s", read: { String($0.staleWhileRevalidateSeconds) }) {
            o, v throws(GateFailure) in
            o.staleWhileRevalidateSeconds = try number("stale_while_revalidate_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "background_refresh", read: { $0.backgroundRefresh.rawValue }) {
            o, v throws(GateFailure) in
            o.backgroundRefresh = try choice("background_refresh", v)
        },
        OptionSpec(key: "proxy", read: { $0.proxy.text }) { o, v throws(GateFailure) in
            o.proxy = try ProxyRules.Setting(parsing: v)
        },
        OptionSpec(key: "tls_ca_file") { o, v throws(GateFailure) in
            o.tlsCAFile = try absolutePath("tls_ca_file", v)
        },
        OptionSpec(key: "defaults") { o, v throws(GateFailure) in
            o.defaultsPath = try SourceLocation.path(from: v)
        },
        OptionSpec(key: "trusted_keys") {
            o, v throws(GateFailure) in
            guard let keys = MinisignPublicKey.parseList(v) else {
                throw .invalidArgument("trusted_keys \(OneLine.quoted(v, max: 64)): each comma-separated item must be "
                                       + "a minisign public key (the base64 line of minisign.pub)")
            }
            o.trustedKeys = keys
        },
        OptionSpec(key: "store", read: { $0.store.rawValue }) { o, v throws(GateFailure) in
            o.store = try choice("store", v)
        },
        OptionSpec(key: "app_id") { o, v throws(GateFailure) in
            o.appID = try token("app_id", v, 255, extra: "._-")
        },
        OptionSpec(key: "country") { o, v throws(GateFailure) in
            guard let code = StoreKind.countryCode(v) else {
                throw .invalidArgument("country \(OneLine.quoted(v, max: 64)) must be two letters")
            }
            o.country = code
        },
        OptionSpec(key: "itunes_endpoint", read: { $0.itunesEndpoint }) { o, v throws(GateFailure) in
            o.itunesEndpoint = try endpoint("itunes_endpoint", v)
        },
        OptionSpec(key: "snap_store_endpoint", read: { $0.snapStoreEndpoint }) { o, v throws(GateFailure) in
            o.snapStoreEndpoint = try endpoint("snap_store_endpoint", v)
        },
        OptionSpec(key: "flathub_endpoint", read: { $0.flathubEndpoint }) { o, v throws(GateFailure) in
            o.flathubEndpoint = try endpoint("flathub_endpoint", v)
        },
        OptionSpec(key: "github_api_endpoint", read: { $0.gitHubAPIEndpoint }) { o, v throws(GateFailure) in
            o.gitHubAPIEndpoint = try endpoint("github_api_endpoint", v)
        },
        OptionSpec(key: "distro_package") { o, v throws(GateFailure) in
            guard v.utf8.count <= 128, let first = v.utf8.first, ASCII.isLowercaseLetter(first) || ASCII.isDigit(first),
                  v.utf8.allSatisfy({ ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || ".+-".utf8.contains($0) }) else {
                throw .invalidArgument("distro_package \(OneLine.quoted(v, max: 64)) must be a Debian package name: "
                                       + "1-128 characters of a-z, 0-9, ., + and -, starting with a letter or digit")
            }
            o.distroPackage = v
        },
        OptionSpec(key: "snap_name") { o, v throws(GateFailure) in
            guard SnapName.isValid(v) else {
                throw .invalidArgument("snap_name \(OneLine.quoted(v, max: 64)) must be a snap's name: 1-40 characters "
                                       + "of a-z, 0-9 and -, with a letter, no - first, last or twice")
            }
            o.snapName = v
        },
        OptionSpec(key: "snap_channel") { o, v throws(GateFailure) in
            guard (1...128).contains(v.utf8.count), v.utf8.first != UInt8(ascii: "/"),
                  v.utf8.allSatisfy({ ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || "./-_".utf8.contains($0) }) else {
                throw .invalidArgument("snap_channel \(OneLine.quoted(v, max: 64)) must be a channel: "
                                       + "[track/]risk[/branch] of a-z, 0-9, ., -, _")
            }
            o.snapChannel = v
        },
        OptionSpec(key: "program") { o, v throws(GateFailure) in o.program = try absolutePath("program", v) },
        OptionSpec(key: "allowed_url_schemes", read: { $0.urlPolicy.allowedSchemes.sorted().joined(separator: ",") }) { o, v throws(GateFailure) in
            guard let set = StoreURLPolicy.parseSchemes(v) else {
                throw .invalidArgument("allowed_url_schemes \(OneLine.quoted(v, max: 64)): a comma-separated subset of "
                                       + StoreURLPolicy.supportedSchemes.sorted().joined(separator: ", "))
            }
            o.urlPolicy.allowedSchemes = set
        },
        OptionSpec(key: "allowed_url_hosts", read: { $0.urlPolicy.allowedHosts.sorted().joined(separator: ",") }) { o, v throws(GateFailure) in
            guard let set = StoreURLPolicy.parseHosts(v) else {
                throw .invalidArgument("allowed_url_hosts \(OneLine.quoted(v, max: 64)): a comma-separated list of host names")
            }
            o.urlPolicy.allowedHosts = set
        },
        OptionSpec(key: "fallback_url") { o, v throws(GateFailure) in
            o.fallbackURL = v
        },
    ]

    /// 1...maxBytes characters of ASCII letters and digits plus `extra`.
    private static func token(_ key: String, _ value: String, _ maxBytes: Int, lowercaseOnly: Bool = false,
                              extra: String = "_") throws(GateFailure) -> String {
        let allowed = value.utf8.allSatisfy { byte in
            ASCII.isLowercaseLetter(byte) || ASCII.isDigit(byte) || extra.utf8.contains(byte)
                || (!lowercaseOnly && ASCII.isLetter(byte))
        }
        guard (1...maxBytes).contains(value.utf8.count), allowed else {
            let letters = lowercaseOnly ? "a-z" : "A-Z, a-z"
            throw .invalidArgument("\(key) \(OneLine.quoted(value, max: 64)) must be 1-\(maxBytes) characters of \(letters), 0-9 and \(extra)")
        }
        return value
    }

    /// One of an enumeration's raw values.
    private static func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ value: String) throws(GateFailure)
        -> T where T.RawValue == String {
        guard let choice = T(rawValue: value) else {
            let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalidArgument("\(key) \(OneLine.quoted(value, max: 64)) must be one of \(names)")
        }
        return choice
    }

    private static func number(_ key: String, _ value: String, _ range: ClosedRange<Int64>) throws(GateFailure) -> Int64 {
        guard let number = Int64(decimal: value), range.contains(number) else {
            throw .invalidArgument("\(key) \(OneLine.quoted(value, max: 64)) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func endpoint(_ key: String, _ value: String) throws(GateFailure) -> String {
        if case .failure(let error) = TransportURL.check(value) { throw .invalidArgument("\(key): \(error.message)") }
        return ASCII.withoutTrailingSlashes(value)
    }

    private static func absolutePath(_ key: String, _ value: String) throws(GateFailure) -> String {
        guard value.hasPrefix("/"), !value.utf8.contains(where: { $0 < 0x20 }) else {
            throw .invalidArgument("\(key) \(OneLine.quoted(value, max: 64)) must be an absolute path")
        }
        return value
    }
}
