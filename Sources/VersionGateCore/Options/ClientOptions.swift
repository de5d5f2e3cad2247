/// A client's settings, set by string key so any FFI can set them and new
/// keys never change the ABI. Every key is declared once, in `table`: the
/// setter, `vg_client_get`, the header's `vg_client_set` comment and the
/// docs/api.md's option table come from it (Tests/VersionGateTests/OptionTableTests.swift fails
/// when they disagree). A default is written once, as the property's initial
/// value below; the table reads it from there. A bad value leaves the option
/// unchanged; a nil value restores the default.
package struct ClientOptions: Sendable, Equatable {
    package enum SessionScope: String, Sendable, CaseIterable { case login, process }
    /// How a stale cache is refreshed behind a check that answered from it
    /// (docs/design.md, "The background refresh").
    package enum BackgroundRefresh: String, Sendable, CaseIterable { case process, off }

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
    /// Asking the channel (docs/design.md, "Asking the channel").
    package var snapStoreEndpoint = "https://api.snapcraft.io"
    package var flathubEndpoint = "https://flathub.org"
    /// The distribution package the app comes from: its candidate in apt's lists.
    package var distroPackage: String?
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
        let option = try Self.option(key)
        guard let value else {
            // The default back: the other options as set, on fresh options.
            var fresh = ClientOptions()
            for other in Self.table where other.key != key {
                if let kept = assignments[other.key] { try fresh.set(other.key, kept) }
            }
            self = fresh
            return
        }
        try option.apply(&self, value)
        assignments[key] = value
    }

    /// The option's value as text: as set, else its default; nil when it is
    /// unset and has none (vg_client_get).
    package func value(_ key: String) throws(GateFailure) -> String? {
        let option = try Self.option(key)
        return assignments[key] ?? option.read?(self)
    }

    private static func option(_ key: String) throws(GateFailure) -> OptionSpec {
        guard let option = table.first(where: { $0.key == key }) else {
            throw .invalidArgument("unknown option \(OneLine.quoted(key, max: 64))")
        }
        return option
    }
}

/// One option key, declared once: what it accepts, what it does, how its
/// default is read and how a value is checked and stored.
package struct OptionSpec: Sendable {
    package typealias Apply = @Sendable (inout ClientOptions, String) throws(GateFailure) -> Void
    package let key: String
    package let accepts: String
    package let summary: String
    /// The option's default as a value it accepts, read from fresh options
    /// (where the default is written); nil when unset means none.
    package let read: (@Sendable (ClientOptions) -> String)?
    package let apply: Apply

    init(key: String, accepts: String, summary: String, read: (@Sendable (ClientOptions) -> String)? = nil,
         apply: @escaping Apply) {
        (self.key, self.accepts, self.summary, self.read, self.apply) = (key, accepts, summary, read, apply)
    }

    /// As documented; "-" when unset means "none".
    package var defaultText: String { read.map { $0(ClientOptions()) } ?? "-" }
}

extension ClientOptions {
    private static let maxSeconds: Int64 = 30 * 86_400

    package static let table: [OptionSpec] = [
        OptionSpec(key: "source", accepts: "path, file:// URL, https:// URL or firebase://PROJECT?api_key=K&app_id=A", summary: "where the gate document or remote config is") { o, v throws(GateFailure) in
            o.source = try SourceSpec.parse(v)
        },
        OptionSpec(key: "platform", accepts: "[a-z0-9_]{1,32}",
                   summary: "suffix of the config keys (ios and android work too)", read: { $0.platform }) { o, v throws(GateFailure) in
            o.platform = try token("platform", v, 32, lowercaseOnly: true)
        },
        OptionSpec(key: "locale", accepts: "a locale name, e.g. pt_BR.UTF-8 or de",
                   summary: "language of the texts; unset: LANGUAGE (ignored when the locale is C or POSIX), else LC_ALL, LC_MESSAGES, LANG at check time, as gettext") { o, v throws(GateFailure) in
            o.locale = try token("locale", v, 64, extra: "_.@-")
        },
        OptionSpec(key: "session_scope", accepts: "login or process",
                   summary: "OPTIONAL prompts once per login session (a marker under $XDG_RUNTIME_DIR) or per process", read: { $0.sessionScope.rawValue }) {
            o, v throws(GateFailure) in
            o.sessionScope = try choice("session_scope", v)
        },
        OptionSpec(key: "log_level", accepts: "error, warning, info or debug",
                   summary: "what the log callback hears; each level includes those before it", read: { $0.logLevel.rawValue }) {
            o, v throws(GateFailure) in
            o.logLevel = try choice("log_level", v)
        },
        OptionSpec(key: "remind_after_s", accepts: "0-31536000",
                   summary: "after an OPTIONAL prompt, no other for this many seconds, across login sessions (under $XDG_STATE_HOME); 0 = once per session only", read: { String($0.remindAfterSeconds) }) {
            o, v throws(GateFailure) in
            o.remindAfterSeconds = try number("remind_after_s", v, 0...31_536_000)
        },
        OptionSpec(key: "dry_run", accepts: "0 or 1",
                   summary: "1: a check says whether it would prompt but records nothing (no session marker, no remind time)", read: { $0.dryRun ? "1" : "0" }) {
            o, v throws(GateFailure) in
            o.dryRun = try number("dry_run", v, 0...1) == 1
        },
        OptionSpec(key: "installed_version_from", accepts: InstalledVersionSource.accepts,
                   summary: "where vg_client_check with a NULL version reads the installed one: the greatest stable release in the AppStream metainfo of ID (default: app_id), or a file's first line") {
            o, v throws(GateFailure) in
            o.installedVersionFrom = try InstalledVersionSource.parse(v).get()
        },
        OptionSpec(key: "firebase_project_id", accepts: "[A-Za-z0-9-]{1,64}",
                   summary: "Firebase project, overriding the firebase:// URL's") { o, v throws(GateFailure) in
            o.firebaseProjectID = try token("firebase_project_id", v, 64, extra: "-")
        },
        OptionSpec(key: "firebase_api_key", accepts: "[A-Za-z0-9_-]{1,256}",
                   summary: "Firebase web API key, overriding the URL's api_key") { o, v throws(GateFailure) in
            o.firebaseAPIKey = try token("firebase_api_key", v, 256, extra: "-_")
        },
        OptionSpec(key: "firebase_app_id", accepts: "[A-Za-z0-9:._-]{1,256}",
                   summary: "Firebase app id, overriding the URL's app_id") { o, v throws(GateFailure) in
            o.firebaseAppID = try token("firebase_app_id", v, 256, extra: ":-_.")
        },
        OptionSpec(key: "firebase_endpoint", accepts: "https:// URL",
                   summary: "Remote Config service base URL", read: { $0.firebaseEndpoint }) { o, v throws(GateFailure) in
            o.firebaseEndpoint = try endpoint("firebase_endpoint", v)
        },
        OptionSpec(key: "firebase_installations_endpoint", accepts: "https:// URL",
                   summary: "Firebase Installations service base URL", read: { $0.firebaseInstallationsEndpoint }) { o, v throws(GateFailure) in
            o.firebaseInstallationsEndpoint = try endpoint("firebase_installations_endpoint", v)
        },
        OptionSpec(key: "package_name", accepts: "[A-Za-z0-9._-]{1,256}",
                   summary: "package name sent to Firebase (selects the project's config)") { o, v throws(GateFailure) in
            o.packageName = try token("package_name", v, 256, extra: "._-")
        },
        OptionSpec(key: "timeout_ms", accepts: "1-60000",
                   summary: "one deadline per call: a wait for another fetch, the fetch, the store lookup", read: { String($0.timeoutMs) }) { o, v throws(GateFailure) in
            o.timeoutMs = Int(try number("timeout_ms", v, 1...60_000))
        },
        OptionSpec(key: "cache_ttl_s", accepts: "0-2592000",
                   summary: "how long a fetched config answers without network (a server max-age wins)", read: { String($0.cacheTTLSeconds) }) {
            o, v throws(GateFailure) in
            o.cacheTTLSeconds = try number("cache_ttl_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "max_stale_s", accepts: "0-2592000",
                   summary: "how old a cached config may be to answer when a fetch fails (a server stale-if-error wins, up to 24 h); 0 = never", read: { String($0.maxStaleSeconds) }) {
            o, v throws(GateFailure) in
            o.maxStaleSeconds = try number("max_stale_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "stale_while_revalidate_s", accepts: "0-2592000",
                   summary: "after cache_ttl_s, how long a cached config still answers at once while one refresh runs in the background (a server stale-while-revalidate wins, up to 24 h); 0 (or max_stale_s 0) = a check fetches first", read: { String($0.staleWhileRevalidateSeconds) }) {
            o, v throws(GateFailure) in
            o.staleWhileRevalidateSeconds = try number("stale_while_revalidate_s", v, 0...maxSeconds)
        },
        OptionSpec(key: "background_refresh", accepts: "process or off",
                   summary: "how that refresh runs: in the fetch helper, a process that outlives the host, or off (a check fetches first)", read: { $0.backgroundRefresh.rawValue }) {
            o, v throws(GateFailure) in
            o.backgroundRefresh = try choice("background_refresh", v)
        },
        OptionSpec(key: "tls_ca_file", accepts: "absolute path of a PEM file",
                   summary: "an extra trust anchor; verification is never turned off") { o, v throws(GateFailure) in
            o.tlsCAFile = try absolutePath("tls_ca_file", v)
        },
        OptionSpec(key: "defaults", accepts: "path or file:// URL",
                   summary: "local gate document used when no remote config can be had") { o, v throws(GateFailure) in
            o.defaultsPath = try SourceLocation.path(from: v)
        },
        OptionSpec(key: "trusted_keys", accepts: "comma-separated minisign public keys (the base64 line of minisign.pub)",
                   summary: "a document is trusted only with a valid <document>.minisig by one of these keys") {
            o, v throws(GateFailure) in
            guard let keys = MinisignPublicKey.parseList(v) else {
                throw .invalidArgument("trusted_keys \(OneLine.quoted(v, max: 64)): each comma-separated item must be "
                                       + "a minisign public key (the base64 line of minisign.pub)")
            }
            o.trustedKeys = keys
        },
        OptionSpec(key: "store", accepts: "url, flathub, snap or appstore",
                   summary: "where the app is published, for the store URL", read: { $0.store.rawValue }) { o, v throws(GateFailure) in
            o.store = try choice("store", v)
        },
        OptionSpec(key: "app_id", accepts: "[A-Za-z0-9._-]{1,255}",
                   summary: "Flatpak/AppStream id, snap name or Apple bundle id") { o, v throws(GateFailure) in
            o.appID = try token("app_id", v, 255, extra: "._-")
        },
        OptionSpec(key: "country", accepts: "two letters",
                   summary: "App Store storefront; unset: the locale's region, else us") { o, v throws(GateFailure) in
            guard let code = StoreKind.countryCode(v) else {
                throw .invalidArgument("country \(OneLine.quoted(v, max: 64)) must be two letters")
            }
            o.country = code
        },
        OptionSpec(key: "itunes_endpoint", accepts: "https:// URL",
                   summary: "base URL of the iTunes Lookup API", read: { $0.itunesEndpoint }) { o, v throws(GateFailure) in
            o.itunesEndpoint = try endpoint("itunes_endpoint", v)
        },
        OptionSpec(key: "snap_store_endpoint", accepts: "https:// URL",
                   summary: "base URL of the Snap store's API, asked what a snap's channel serves before a MANDATORY blocks", read: { $0.snapStoreEndpoint }) { o, v throws(GateFailure) in
            o.snapStoreEndpoint = try endpoint("snap_store_endpoint", v)
        },
        OptionSpec(key: "flathub_endpoint", accepts: "https:// URL",
                   summary: "base URL of Flathub, whose API is asked what it serves (store=flathub) before a MANDATORY blocks", read: { $0.flathubEndpoint }) { o, v throws(GateFailure) in
            o.flathubEndpoint = try endpoint("flathub_endpoint", v)
        },
        OptionSpec(key: "distro_package", accepts: "a Debian package name, [a-z0-9.+-]{1,128}",
                   summary: "the distribution package the app comes from: before a MANDATORY blocks, its candidate in apt's lists is asked (not the Firebase package_name)") { o, v throws(GateFailure) in
            guard v.utf8.count <= 128, let first = v.utf8.first, ASCII.isLowercaseLetter(first) || ASCII.isDigit(first),
                  v.utf8.allSatisfy({ ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || ".+-".utf8.contains($0) }) else {
                throw .invalidArgument("distro_package \(OneLine.quoted(v, max: 64)) must be a Debian package name: "
                                       + "1-128 characters of a-z, 0-9, ., + and -, starting with a letter or digit")
            }
            o.distroPackage = v
        },
        OptionSpec(key: "allowed_url_schemes", accepts: "comma-separated subset of https, appstream, snap, itms-apps", summary: "schemes a store URL may have", read: { $0.urlPolicy.allowedSchemes.sorted().joined(separator: ",") }) { o, v throws(GateFailure) in
            guard let set = StoreURLPolicy.parseSchemes(v) else {
                throw .invalidArgument("allowed_url_schemes \(OneLine.quoted(v, max: 64)): a comma-separated subset of "
                                       + StoreURLPolicy.supportedSchemes.sorted().joined(separator: ", "))
            }
            o.urlPolicy.allowedSchemes = set
        },
        OptionSpec(key: "allowed_url_hosts", accepts: "comma-separated host names",
                   summary: "hosts an https or itms-apps store URL may name (exact match)", read: { $0.urlPolicy.allowedHosts.sorted().joined(separator: ",") }) { o, v throws(GateFailure) in
            guard let set = StoreURLPolicy.parseHosts(v) else {
                throw .invalidArgument("allowed_url_hosts \(OneLine.quoted(v, max: 64)): a comma-separated list of host names")
            }
            o.urlPolicy.allowedHosts = set
        },
        OptionSpec(key: "fallback_url", accepts: "a URL the policy allows",
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
