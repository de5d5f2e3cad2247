/// A client's settings, set by string key so any FFI can set them and new
/// keys never change the ABI. What each key accepts, its default and what it
/// does are declared in declarations/options.decl, which the header, docs/api.md
/// and the man page are written from (scripts/generate); `table`
/// (OptionTable.swift) parses each key and reads its default, written once
/// as the property's initial value below (OptionTableTests holds the
/// table's keys and defaults to the declaration).
/// A bad value leaves the option unchanged; a nil value restores the default.
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
    /// Not an option: the administrator's policy file that allows no network
    /// (docs/design.md, "The administrator's policy"); nil when it may be used.
    package var networkForbiddenBy: String?
    /// Where a check without a version reads the installed one; nil: it must be passed.
    package var installedVersionFrom: InstalledVersionSource?

    package var firebaseProjectID: String?
    package var firebaseAPIKey: String?
    package var firebaseAppID: String?
    package var firebaseEndpoint = "https://firebaseremoteconfig.googleapis.com"
    /// Realtime's origin, and a watched document's interval (docs/design.md, "Watching a source").
    package var firebaseRealtimeEndpoint = "https://firebaseremoteconfigrealtime.googleapis.com"
    package var watchIntervalSeconds = 300
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
    /// Every request's proxy (docs/design.md, "The desktop's proxy").
    package var proxy = ProxyRules.Setting.auto
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
    package var gitHubAPIEndpoint = "https://api.github.com"
    /// The distribution package the app comes from: its candidate in apt's lists.
    package var distroPackage: String?
    /// The app's program, whose package owner Update may update; nil: this process's.
    package var program: String?
    /// The snap the app comes from (its program need not be under /snap), and
    /// the channel Update refreshes it from (nil: the one it tracks).
    package var snapName: String?
    package var snapChannel: String?
    package var urlPolicy = StoreURLPolicy.standard
    /// Checked when used: the host list may be set after it.
    package var fallbackURL: String?

    /// Every option set to a value, as given (the last value per key): what
    /// `value` answers and a reset replays, and the text of options passed
    /// on as written (source, trusted_keys).
    package private(set) var assignments: [String: String] = [:]

    package init() {}

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
