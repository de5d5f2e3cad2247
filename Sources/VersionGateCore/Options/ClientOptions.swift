/// A client's settings, set by string key so any FFI can set them and new
/// keys never change the ABI. Every key is declared once, in `table`: the
/// setter, the header's `vg_client_set` comment and the README's option
/// table come from it (Tests/VersionGateTests/OptionTableTests.swift fails
/// when they disagree). A bad value leaves the option unchanged; a nil
/// value restores the default.
package struct ClientOptions: Sendable, Equatable {
    package enum SessionScope: String, Sendable, CaseIterable { case login, process }
    /// How a stale cache is refreshed behind a check that answered from it
    /// (docs/design.md, "The background refresh").
    package enum BackgroundRefresh: String, Sendable, CaseIterable { case process, thread, off }

    package var source: SourceSpec?
    package var platform = "linux"
    /// nil = from the environment at check time.
    package var locale: String?
    package var sessionScope = SessionScope.login
    /// What the log callback (vg_client_set_log_callback) hears.
    package var logLevel = LogLevel.warning
    /// After an OPTIONAL prompt, none for this long, across sessions; 0 = off.
    package var remindAfterSeconds: Int64 = 0
    /// Checks say whether they would prompt but record nothing (explain).
    package var dryRun = false
    /// Where a check without a version reads the installed one; nil: it must be passed.
    package var installedVersionFrom: InstalledVersionSource?

    package var firebaseProjectID: String?
    package var firebaseAPIKey: String?
    package var firebaseAppID: String?
    package var firebaseEndpoint = "https://firebaseremoteconfig.googleapis.com"
    package var firebaseInstallationsEndpoint = "https://firebaseinstallations.googleapis.com"
    package var packageName: String?

    package var timeoutMs = 3000
    package var cacheTTLSeconds: Int64 = 3600
    package var maxStaleSeconds: Int64 = 86_400
    /// After the TTL, how long a cached config still answers at once while
    /// a refresh runs in the background; 0 = a check fetches first.
    package var staleWhileRevalidateSeconds: Int64 = 604_800
    package var backgroundRefresh = BackgroundRefresh.process
    package var tlsCAFile: String?
    /// Local gate document used when no remote config can be had.
    package var defaultsPath: String?
    /// When set, a document (local, self-hosted or `defaults`) is trusted
    /// only with a valid minisign signature by one of these keys.
    package var trustedKeys: [MinisignPublicKey] = []

    /// Where to update (docs/design.md, "Where to update").
    package var store = StoreKind.url
    package var appID: String?
    /// nil = from the locale's region, else "us".
    package var country: String?
    package var itunesEndpoint = "https://itunes.apple.com"
    package var urlPolicy = StoreURLPolicy.standard
    /// Checked when used: the host list may be set after it.
    package var fallbackURL: String?

    /// Every option set to a value, as given (the last value per key): what
    /// a background refresher is started with, so it fetches exactly as
    /// this client would.
    package private(set) var assignments: [String: String] = [:]

    package init() {}

    /// `assignments` in the option table's order, as `key=value` strings.
    package var assignmentList: [String] {
        Self.table.compactMap { option in assignments[option.key].map { option.key + "=" + $0 } }
    }

    package static let maxValueBytes = 4096

    package mutating func set(_ key: String, _ value: String?) throws(GateFailure) {
        if let value, value.utf8.count > Self.maxValueBytes {
            throw .invalidArgument("value for \(OneLine.quoted(key, max: 64)) is longer than \(Self.maxValueBytes) bytes")
        }
        guard let option = Self.table.first(where: { $0.key == key }) else {
            throw .invalidArgument("unknown option \(OneLine.quoted(key, max: 64))")
        }
        try option.apply(&self, value)
        assignments[key] = value
    }
}

/// One option key, declared once: what it accepts, its default, what it
/// does, and how a value is checked and stored.
package struct OptionSpec: Sendable {
    package typealias Apply = @Sendable (inout ClientOptions, String?) throws(GateFailure) -> Void
    package let key: String
    package let accepts: String
    /// As documented; "-" when unset means "none".
    package let defaultText: String
    package let summary: String
    package let apply: Apply
}

extension ClientOptions {
    private static let maxSeconds: Int64 = 30 * 86_400

    package static let table: [OptionSpec] = [
        OptionSpec(key: "source", accepts: "path, file:// URL, https:// URL or firebase://PROJECT?api_key=K&app_id=A",
                   defaultText: "-", summary: "where the gate document or remote config is") { o, v throws(GateFailure) in
            o.source = try v.map { v throws(GateFailure) in try SourceSpec.parse(v) }
        },
        OptionSpec(key: "platform", accepts: "[a-z0-9_]{1,32}", defaultText: "linux",
                   summary: "suffix of the config keys (ios and android work too)") { o, v throws(GateFailure) in
            o.platform = try v.map { v throws(GateFailure) in try token("platform", v, 32, lowercaseOnly: true) } ?? "linux"
        },
        OptionSpec(key: "locale", accepts: "a locale name, e.g. pt_BR.UTF-8 or de", defaultText: "-",
                   summary: "language of the texts; unset: LANGUAGE (ignored when the locale is C or POSIX), else LC_ALL, LC_MESSAGES, LANG at check time, as gettext") { o, v throws(GateFailure) in
            o.locale = try v.map { v throws(GateFailure) in try token("locale", v, 64, extra: "_.@-") }
        },
        OptionSpec(key: "session_scope", accepts: "login or process", defaultText: "login",
                   summary: "OPTIONAL prompts once per login session (a marker under $XDG_RUNTIME_DIR) or per process") {
            o, v throws(GateFailure) in
            o.sessionScope = try v.map { v throws(GateFailure) in try choice("session_scope", v) } ?? .login
        },
        OptionSpec(key: "log_level", accepts: "error, warning, info or debug", defaultText: "warning",
                   summary: "what the log callback hears; each level includes those before it") {
            o, v throws(GateFailure) in
            o.logLevel = try v.map { v throws(GateFailure) in try choice("log_level", v) } ?? .warning
        },
        OptionSpec(key: "remind_after_s", accepts: "0-31536000", defaultText: "0",
                   summary: "after an OPTIONAL prompt, no other for this many seconds, across login sessions (under $XDG_STATE_HOME); 0 = once per session only") {
            o, v throws(GateFailure) in
            o.remindAfterSeconds = try v.map { v throws(GateFailure) in try number("remind_after_s", v, 0...31_536_000) } ?? 0
        },
        OptionSpec(key: "dry_run", accepts: "0 or 1", defaultText: "0",
                   summary: "1: a check says whether it would prompt but records nothing (no session marker, no remind time)") {
            o, v throws(GateFailure) in
            o.dryRun = try v.map { v throws(GateFailure) in try number("dry_run", v, 0...1) } == 1
        },
        OptionSpec(key: "installed_version_from", accepts: InstalledVersionSource.accepts, defaultText: "-",
                   summary: "where vg_client_check with a NULL version reads the installed one: the greatest stable release in the AppStream metainfo of ID (default: app_id), or a file's first line") {
            o, v throws(GateFailure) in
            o.installedVersionFrom = try v.map { v throws(GateFailure) in try InstalledVersionSource.parse(v).get() }
        },
        OptionSpec(key: "firebase_project_id", accepts: "[A-Za-z0-9-]{1,64}", defaultText: "-",
                   summary: "Firebase project, overriding the firebase:// URL's") { o, v throws(GateFailure) in
            o.firebaseProjectID = try v.map { v throws(GateFailure) in try token("firebase_project_id", v, 64, extra: "-") }
        },
        OptionSpec(key: "firebase_api_key", accepts: "[A-Za-z0-9_-]{1,256}", defaultText: "-",
                   summary: "Firebase web API key, overriding the URL's api_key") { o, v throws(GateFailure) in
            o.firebaseAPIKey = try v.map { v throws(GateFailure) in try token("firebase_api_key", v, 256, extra: "-_") }
        },
        OptionSpec(key: "firebase_app_id", accepts: "[A-Za-z0-9:._-]{1,256}", defaultText: "-",
                   summary: "Firebase app id, overriding the URL's app_id") { o, v throws(GateFailure) in
            o.firebaseAppID = try v.map { v throws(GateFailure) in try token("firebase_app_id", v, 256, extra: ":-_.") }
        },
        OptionSpec(key: "firebase_endpoint", accepts: "https:// URL", defaultText: "https://firebaseremoteconfig.googleapis.com",
                   summary: "Remote Config service base URL") { o, v throws(GateFailure) in
            o.firebaseEndpoint = try v.map { v throws(GateFailure) in try endpoint("firebase_endpoint", v) }
                ?? ClientOptions().firebaseEndpoint
        },
        OptionSpec(key: "firebase_installations_endpoint", accepts: "https:// URL",
                   defaultText: "https://firebaseinstallations.googleapis.com",
                   summary: "Firebase Installations service base URL") { o, v throws(GateFailure) in
            o.firebaseInstallationsEndpoint = try v.map { v throws(GateFailure) in
                try endpoint("firebase_installations_endpoint", v)
            } ?? ClientOptions().firebaseInstallationsEndpoint
        },
        OptionSpec(key: "package_name", accepts: "[A-Za-z0-9._-]{1,256}", defaultText: "-",
                   summary: "package name sent to Firebase (selects the project's config)") { o, v throws(GateFailure) in
            o.packageName = try v.map { v throws(GateFailure) in try token("package_name", v, 256, extra: "._-") }
        },
        OptionSpec(key: "timeout_ms", accepts: "1-60000", defaultText: "3000",
                   summary: "one deadline per call: a wait for another fetch, the fetch, the store lookup") { o, v throws(GateFailure) in
            o.timeoutMs = try v.map { v throws(GateFailure) in Int(try number("timeout_ms", v, 1...60_000)) } ?? 3000
        },
        OptionSpec(key: "cache_ttl_s", accepts: "0-2592000", defaultText: "3600",
                   summary: "how long a fetched config answers without network (a server max-age wins)") {
            o, v throws(GateFailure) in
            o.cacheTTLSeconds = try v.map { v throws(GateFailure) in try number("cache_ttl_s", v, 0...maxSeconds) } ?? 3600
        },
        OptionSpec(key: "max_stale_s", accepts: "0-2592000", defaultText: "86400",
                   summary: "how old a cached config may be to answer when a fetch fails (a server stale-if-error wins, up to 24 h); 0 = never") {
            o, v throws(GateFailure) in
            o.maxStaleSeconds = try v.map { v throws(GateFailure) in try number("max_stale_s", v, 0...maxSeconds) } ?? 86_400
        },
        OptionSpec(key: "stale_while_revalidate_s", accepts: "0-2592000", defaultText: "604800",
                   summary: "after cache_ttl_s, how long a cached config still answers at once while one refresh runs in the background (a server stale-while-revalidate wins, up to 24 h); 0 (or max_stale_s 0) = a check fetches first") {
            o, v throws(GateFailure) in
            o.staleWhileRevalidateSeconds = try v.map { v throws(GateFailure) in
                try number("stale_while_revalidate_s", v, 0...maxSeconds)
            } ?? 604_800
        },
        OptionSpec(key: "background_refresh", accepts: "process, thread or off", defaultText: "process",
                   summary: "how that refresh runs: in the fetch helper, a process that outlives the host, or off (a check fetches first); thread (before 1.2, a thread of the host) now means process") {
            o, v throws(GateFailure) in
            o.backgroundRefresh = try v.map { v throws(GateFailure) in try choice("background_refresh", v) } ?? .process
        },
        OptionSpec(key: "tls_ca_file", accepts: "absolute path of a PEM file", defaultText: "-",
                   summary: "an extra trust anchor; verification is never turned off") { o, v throws(GateFailure) in
            o.tlsCAFile = try v.map { v throws(GateFailure) in try absolutePath("tls_ca_file", v) }
        },
        OptionSpec(key: "defaults", accepts: "path or file:// URL", defaultText: "-",
                   summary: "local gate document used when no remote config can be had") { o, v throws(GateFailure) in
            o.defaultsPath = try v.map { v throws(GateFailure) in try SourceLocation.path(from: v) }
        },
        OptionSpec(key: "trusted_keys", accepts: "comma-separated minisign public keys (the base64 line of minisign.pub)",
                   defaultText: "-",
                   summary: "a document is trusted only with a valid <document>.minisig by one of these keys") {
            o, v throws(GateFailure) in
            o.trustedKeys = try v.map { v throws(GateFailure) in
                guard let keys = MinisignPublicKey.parseList(v) else {
                    throw .invalidArgument("trusted_keys \(OneLine.quoted(v, max: 64)): each comma-separated item must be "
                                           + "a minisign public key (the base64 line of minisign.pub)")
                }
                return keys
            } ?? []
        },
        OptionSpec(key: "store", accepts: "url, flathub, snap or appstore", defaultText: "url",
                   summary: "where the app is published, for the store URL") { o, v throws(GateFailure) in
            o.store = try v.map { v throws(GateFailure) in try choice("store", v) } ?? .url
        },
        OptionSpec(key: "app_id", accepts: "[A-Za-z0-9._-]{1,255}", defaultText: "-",
                   summary: "Flatpak/AppStream id, snap name or Apple bundle id") { o, v throws(GateFailure) in
            o.appID = try v.map { v throws(GateFailure) in try token("app_id", v, 255, extra: "._-") }
        },
        OptionSpec(key: "country", accepts: "two letters", defaultText: "-",
                   summary: "App Store storefront; unset: the locale's region, else us") { o, v throws(GateFailure) in
            o.country = try v.map { v throws(GateFailure) in
                guard let code = StoreKind.countryCode(v) else {
                    throw .invalidArgument("country \(OneLine.quoted(v, max: 64)) must be two letters")
                }
                return code
            }
        },
        OptionSpec(key: "itunes_endpoint", accepts: "https:// URL", defaultText: "https://itunes.apple.com",
                   summary: "base URL of the iTunes Lookup API") { o, v throws(GateFailure) in
            o.itunesEndpoint = try v.map { v throws(GateFailure) in try endpoint("itunes_endpoint", v) }
                ?? ClientOptions().itunesEndpoint
        },
        OptionSpec(key: "allowed_url_schemes", accepts: "comma-separated subset of https, appstream, snap, itms-apps",
                   defaultText: "all four", summary: "schemes a store URL may have") { o, v throws(GateFailure) in
            o.urlPolicy.allowedSchemes = try v.map { v throws(GateFailure) in
                guard let set = StoreURLPolicy.parseSchemes(v) else {
                    throw .invalidArgument("allowed_url_schemes \(OneLine.quoted(v, max: 64)): a comma-separated subset of "
                                           + StoreURLPolicy.supportedSchemes.sorted().joined(separator: ", "))
                }
                return set
            } ?? StoreURLPolicy.standard.allowedSchemes
        },
        OptionSpec(key: "allowed_url_hosts", accepts: "comma-separated host names",
                   defaultText: "flathub.org, snapcraft.io, apps.apple.com, itunes.apple.com",
                   summary: "hosts an https or itms-apps store URL may name (exact match)") { o, v throws(GateFailure) in
            o.urlPolicy.allowedHosts = try v.map { v throws(GateFailure) in
                guard let set = StoreURLPolicy.parseHosts(v) else {
                    throw .invalidArgument("allowed_url_hosts \(OneLine.quoted(v, max: 64)): a comma-separated list of host names")
                }
                return set
            } ?? StoreURLPolicy.standard.allowedHosts
        },
        OptionSpec(key: "fallback_url", accepts: "a URL the policy allows", defaultText: "-",
                   summary: "store URL used when no other candidate passes the policy") { o, v throws(GateFailure) in
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
