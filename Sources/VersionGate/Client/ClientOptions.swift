/// A client's settings, set by string key so any FFI can set them and new
/// keys never change the ABI. Each setter validates its value; a bad value
/// leaves the option unchanged. A nil value restores the default.
struct ClientOptions: Sendable, Equatable {
    enum SessionScope: String, Sendable, CaseIterable { case login, process }

    var source: SourceSpec?
    var platform = "linux"
    /// nil = from the environment at check time.
    var locale: String?
    var sessionScope = SessionScope.login

    var firebaseProjectID: String?
    var firebaseAPIKey: String?
    var firebaseAppID: String?
    var firebaseEndpoint = "https://firebaseremoteconfig.googleapis.com"
    var firebaseInstallationsEndpoint = "https://firebaseinstallations.googleapis.com"
    var packageName: String?

    var timeoutMs = 3000
    var cacheTTLSeconds: Int64 = 3600
    var maxStaleSeconds: Int64 = 86_400
    var tlsCAFile: String?
    /// Local gate document used when no remote config can be had.
    var defaultsPath: String?
    /// Tests and simulations: the wall clock, Unix seconds.
    var fixedTime: Int64?

    /// Where to update (SPEC §7).
    var store = StoreKind.url
    var appID: String?
    /// nil = from the locale's region, else "us".
    var country: String?
    var itunesEndpoint = AppStoreLookup.defaultEndpoint
    var urlPolicy = StoreURLPolicy.standard
    /// Checked when used: the host list may be set after it.
    var fallbackURL: String?

    static let maxValueBytes = 4096
    private static let maxSeconds: Int64 = 30 * 86_400

    mutating func set(_ key: String, _ value: String?) throws(GateFailure) {
        if let value, value.utf8.count > Self.maxValueBytes {
            throw .invalidArgument("value for \"\(key)\" is longer than \(Self.maxValueBytes) bytes")
        }
        let defaults = ClientOptions()
        switch key {
        case "source":
            source = try value.map { v throws(GateFailure) in try SourceSpec.parse(v) }
        case "platform":
            platform = try value.map { v throws(GateFailure) in try Self.token(key, v, 32, lowercaseOnly: true) }
                ?? defaults.platform
        case "locale":
            locale = try value.map { v throws(GateFailure) in try Self.token(key, v, 64, extra: "_.@-") }
        case "session_scope":
            sessionScope = try value.map { v throws(GateFailure) in try Self.choice(key, v) } ?? defaults.sessionScope
        case "firebase_project_id":
            firebaseProjectID = try value.map { v throws(GateFailure) in try Self.token(key, v, 64, extra: "-") }
        case "firebase_api_key":
            firebaseAPIKey = try value.map { v throws(GateFailure) in try Self.token(key, v, 256, extra: "-_") }
        case "firebase_app_id":
            firebaseAppID = try value.map { v throws(GateFailure) in try Self.token(key, v, 256, extra: ":-_.") }
        case "firebase_endpoint":
            firebaseEndpoint = try value.map { v throws(GateFailure) in try Self.endpoint(key, v) } ?? defaults.firebaseEndpoint
        case "firebase_installations_endpoint":
            firebaseInstallationsEndpoint = try value.map { v throws(GateFailure) in try Self.endpoint(key, v) }
                ?? defaults.firebaseInstallationsEndpoint
        case "package_name":
            packageName = try value.map { v throws(GateFailure) in try Self.token(key, v, 256, extra: "._-") }
        case "timeout_ms":
            timeoutMs = try value.map { v throws(GateFailure) in Int(try Self.number(key, v, 1...60_000)) } ?? defaults.timeoutMs
        case "cache_ttl_s":
            cacheTTLSeconds = try value.map { v throws(GateFailure) in try Self.number(key, v, 0...Self.maxSeconds) }
                ?? defaults.cacheTTLSeconds
        case "max_stale_s":
            maxStaleSeconds = try value.map { v throws(GateFailure) in try Self.number(key, v, 0...Self.maxSeconds) }
                ?? defaults.maxStaleSeconds
        case "tls_ca_file":
            tlsCAFile = try value.map { v throws(GateFailure) in try Self.absolutePath(key, v) }
        case "defaults":
            defaultsPath = try value.map { v throws(GateFailure) in try SourceLocation.path(from: v) }
        case "fixed_time_s":
            fixedTime = try value.map { v throws(GateFailure) in try Self.number(key, v, 0...Int64(Int32.max) * 2) }
        case "store":
            store = try value.map { v throws(GateFailure) in try Self.choice(key, v) } ?? defaults.store
        case "app_id":
            appID = try value.map { v throws(GateFailure) in try Self.token(key, v, 255, extra: "._-") }
        case "country":
            country = try value.map { v throws(GateFailure) in
                guard let code = AppStoreLookup.countryCode(v) else {
                    throw .invalidArgument("country \"\(v.prefix(64))\" must be two letters")
                }
                return code
            }
        case "itunes_endpoint":
            itunesEndpoint = try value.map { v throws(GateFailure) in try Self.endpoint(key, v) } ?? defaults.itunesEndpoint
        case "allowed_url_schemes":
            urlPolicy.allowedSchemes = try value.map { v throws(GateFailure) in
                guard let set = StoreURLPolicy.parseSchemes(v) else {
                    throw .invalidArgument("allowed_url_schemes \"\(v.prefix(64))\": a comma-separated subset of "
                                           + StoreURLPolicy.supportedSchemes.sorted().joined(separator: ", "))
                }
                return set
            } ?? StoreURLPolicy.standard.allowedSchemes
        case "allowed_url_hosts":
            urlPolicy.allowedHosts = try value.map { v throws(GateFailure) in
                guard let set = StoreURLPolicy.parseHosts(v) else {
                    throw .invalidArgument("allowed_url_hosts \"\(v.prefix(64))\": a comma-separated list of host names")
                }
                return set
            } ?? StoreURLPolicy.standard.allowedHosts
        case "fallback_url":
            fallbackURL = value
        default:
            throw .invalidArgument("unknown option \"\(key)\"")
        }
    }

    /// 1...maxBytes characters of ASCII letters and digits plus `extra`.
    private static func token(_ key: String, _ value: String, _ maxBytes: Int, lowercaseOnly: Bool = false,
                              extra: String = "_") throws(GateFailure) -> String {
        let allowed = value.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || extra.utf8.contains(byte)
                || (!lowercaseOnly && (0x41...0x5A).contains(byte))
        }
        guard (1...maxBytes).contains(value.utf8.count), allowed else {
            let letters = lowercaseOnly ? "a-z" : "A-Z, a-z"
            throw .invalidArgument("\(key) \"\(value.prefix(64))\" must be 1-\(maxBytes) characters of \(letters), 0-9 and \(extra)")
        }
        return value
    }

    /// One of an enumeration's raw values.
    private static func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ value: String) throws(GateFailure)
        -> T where T.RawValue == String {
        guard let choice = T(rawValue: value) else {
            let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalidArgument("\(key) \"\(value.prefix(64))\" must be one of \(names)")
        }
        return choice
    }

    private static func number(_ key: String, _ value: String, _ range: ClosedRange<Int64>) throws(GateFailure) -> Int64 {
        guard let number = Int64(decimal: value), range.contains(number) else {
            throw .invalidArgument("\(key) \"\(value.prefix(64))\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func endpoint(_ key: String, _ value: String) throws(GateFailure) -> String {
        if case .failure(let error) = TransportURL.check(value) { throw .invalidArgument("\(key): \(error.message)") }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    private static func absolutePath(_ key: String, _ value: String) throws(GateFailure) -> String {
        guard value.hasPrefix("/"), !value.utf8.contains(where: { $0 < 0x20 }) else {
            throw .invalidArgument("\(key) \"\(value.prefix(64))\" must be an absolute path")
        }
        return value
    }
}
