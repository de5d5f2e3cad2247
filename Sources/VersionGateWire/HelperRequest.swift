import VersionGateCore

/// What the host asks of the helper (docs/design.md, "The helper's
/// protocol"): one request per helper process, every mode the helper runs.
/// The wire form is HelperMessage's records; this type is the only code
/// that writes or reads them, and the only place the protocol's version is.
package enum HelperRequest: Sendable {
    /// A remote source's fetch: a check waiting for it, a refresh, or a
    /// background refresh nobody waits for.
    case fetch(ConfigFetch)
    /// One HTTP exchange for the host (the App Store lookup).
    case http(HTTPRequest, TransportLimits)
    /// Ask a channel and write its cache entry (docs/design.md, "Asking the
    /// channel"); the helper holds the host's lock on it, as descriptor 3.
    case channel(ChannelAsk)
    /// Update this app in place: a Flatpak through the portal, an AppImage by
    /// zsync delta, a distribution package through PackageKit.
    case update(Update)
    /// Start the newest installed version of this Flatpak app.
    case restart(Restart)

    /// Bumped whenever a request or an answer changes shape: a helper from
    /// another build refuses rather than misreads.
    package static let protocolVersion = "7"

    /// A remote source's fetch, as the host decided it: the host found no
    /// fresh cache, holds the login burst's lock (handed on as descriptor
    /// 3) and is not backing off. The helper exchanges, verifies and writes
    /// the next cache entry, or the failure and backoff, nothing else.
    package struct ConfigFetch: Sendable, Equatable {
        package var mode: FetchMode
        package var remote: RemoteConfig
        /// What the host's cache entry says, if it has one.
        package var previous: Previous?
        /// The backoff the host read (Backoff's JSON): a throttled answer extends it.
        package var backoff: [UInt8]?
        package var appVersion: String?
        /// BCP 47, e.g. "pt-BR", and the device's facts, as Firebase's conditions test them.
        package var languageCode: String
        package var timeZone: String?, platformVersion: String?, countryCode: String?
        package var limits: TransportLimits
        /// Wall clock, Unix seconds: the host's, so both ends age alike.
        package var now: Int64
        /// The host's boot-clock reading of the same moment: an entry the
        /// helper stamps with its own, read a moment later, could lie a
        /// second ahead of the host's and have no age there.
        package var boot: BootInstant?
        /// The host's deadline on the shared monotonic clock (Deadline.nanoseconds).
        package var deadlineNanoseconds: Int64
        /// The proxy variables libcurl reads, as the host has them.
        package var environment: [String: String]
        /// Their names: the only variables a fetch carries.
        package static let proxyNames = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                         "no_proxy", "NO_PROXY"]
        /// Where the entry is written, and the installation, failure and backoff files.
        package var cacheHome: String?
        package var stateHome: String?
        /// The host's log threshold; nil when nobody listens.
        package var log: LogLevel?

        /// The cached entry, as much as the helper needs: its ETag for
        /// If-None-Match, the template version and signature time a new
        /// config may not be older than, and the file (by identity) a 304
        /// renews. The entry itself stays out: a request must fit a pipe.
        package struct Previous: Sendable, Equatable {
            package var etag: String?
            package var templateVersion: Int64?
            package var signatureTimestamp: Int64?
            package var identity: FileIdentity?

            package init(etag: String?, templateVersion: Int64?, signatureTimestamp: Int64?, identity: FileIdentity?) {
                (self.etag, self.templateVersion, self.signatureTimestamp, self.identity) =
                    (etag, templateVersion, signatureTimestamp, identity)
            }
        }

        package init(mode: FetchMode, remote: RemoteConfig, previous: Previous?, backoff: [UInt8]?, appVersion: String?,
                     languageCode: String, limits: TransportLimits, now: Int64, boot: BootInstant?,
                     deadlineNanoseconds: Int64, cacheHome: String?, stateHome: String?) {
            (self.mode, self.remote, self.previous, self.backoff, self.appVersion) = (mode, remote, previous, backoff, appVersion)
            (self.languageCode, self.limits, self.now, self.boot) = (languageCode, limits, now, boot)
            (self.deadlineNanoseconds, self.cacheHome, self.stateHome) = (deadlineNanoseconds, cacheHome, stateHome)
            environment = [:]
        }
    }

    package struct ChannelAsk: Sendable {
        package var question: ChannelQuestion
        /// The exchange, conditional on the entry's validators.
        package var request: HTTPRequest
        /// The helper's own bound, not the host's deadline.
        package var limits: TransportLimits
        /// The entry the host read under the lock: the answer kept through a failure.
        package var previous: ChannelEntry
        /// Wall clock, Unix seconds: the host's, so both ends age alike.
        package var now: Int64
        /// Where the next entry is written: the versiongate directory of `cacheHome`, file `fileName`.
        package var cacheHome: String
        package var fileName: String

        package init(question: ChannelQuestion, request: HTTPRequest, limits: TransportLimits, previous: ChannelEntry,
                     now: Int64, cacheHome: String, fileName: String) {
            (self.question, self.request, self.limits, self.previous) = (question, request, limits, previous)
            (self.now, self.cacheHome, self.fileName) = (now, cacheHome, fileName)
        }
    }

    package struct Update: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case flatpak
            /// The AppImage file at `path` (`$APPIMAGE`).
            case appImage(path: String)
            /// The installed distribution package `name`, through PackageKit.
            case package(name: String)
            /// The snap `name`, refreshed by snapd (its tracked channel, or `channel`).
            case snap(name: String, channel: String?)

            /// Its name in events and messages.
            package var name: String {
                switch self {
                case .flatpak: "flatpak"
                case .appImage: "appimage"
                case .package: "package"
                case .snap: "snap"
                }
            }
        }
        /// The longest an update may run before the helper gives up on it.
        package static let defaultMaxSeconds = 3600

        package var kind: Kind
        /// The longest the whole update may take.
        package var maxSeconds: Int
        /// Each request's (an AppImage's control file and ranges).
        package var limits: TransportLimits
        /// Where gh-releases-zsync update information is resolved (option github_api_endpoint).
        package var gitHubAPI: String
        /// The option trusted_keys as set: a new AppImage must then carry a
        /// signature by one of them.
        package var trustedKeys: String?

        package init(kind: Kind, maxSeconds: Int, limits: TransportLimits, gitHubAPI: String, trustedKeys: String?) {
            (self.kind, self.maxSeconds, self.limits) = (kind, maxSeconds, limits)
            (self.gitHubAPI, self.trustedKeys) = (gitHubAPI, trustedKeys)
        }
    }

    package struct Restart: Sendable, Equatable {
        package var directory: String
        /// Wait for the new version to end and answer its exit status.
        package var wait: Bool
        package var arguments: [String]

        package init(directory: String, wait: Bool, arguments: [String]) {
            (self.directory, self.wait, self.arguments) = (directory, wait, arguments)
        }
    }

    private enum Mode: String {
        case fetch, refresh, background, http, channel, update, restart
    }

    package func message() -> HelperMessage {
        var message = HelperMessage()
        message.add("protocol", Self.protocolVersion)
        switch self {
        case .fetch(let fetch):
            message.add("mode", fetch.mode.rawValue)
            fetch.remote.add(to: &message)
            if let previous = fetch.previous {
                message.add("previous", "1")
                if let etag = previous.etag { message.add("etag", etag) }
                if let version = previous.templateVersion { message.add("template_version", String(version)) }
                if let time = previous.signatureTimestamp { message.add("signature_time", String(time)) }
                if let identity = previous.identity { message.add("identity", identity.wireText) }
            }
            if let backoff = fetch.backoff { message.add("backoff", String(decoding: backoff, as: UTF8.self)) }
            if let version = fetch.appVersion { message.add("version", version) }
            message.add("language", fetch.languageCode)
            if let zone = fetch.timeZone { message.add("time_zone", zone) }
            if let platform = fetch.platformVersion { message.add("platform_version", platform) }
            if let country = fetch.countryCode { message.add("country", country) }
            Self.add(fetch.limits, to: &message)
            message.add("now", String(fetch.now))
            if let boot = fetch.boot { message.add("boot", String(boot.seconds) + " " + boot.bootID) }
            message.add("deadline_ns", String(fetch.deadlineNanoseconds))
            for (name, value) in fetch.environment.sorted(by: { $0.key < $1.key }) { message.add("env", name + "=" + value) }
            if let home = fetch.cacheHome { message.add("cache_home", home) }
            if let home = fetch.stateHome { message.add("state_home", home) }
            if let log = fetch.log { message.add("log", log.rawValue) }
        case .http(let request, let limits):
            message.add("mode", Mode.http.rawValue)
            Self.add(request, limits, to: &message)
        case .channel(let ask):
            message.add("mode", Mode.channel.rawValue)
            for part in ask.question.parts { message.add("question", part) }
            Self.add(ask.request, ask.limits, to: &message)
            message.add("key", ask.previous.key)
            message.add("architecture", ask.previous.architecture)
            message.add("previous", String(decoding: ask.previous.encoded(), as: UTF8.self))
            message.add("now", String(ask.now))
            message.add("cache_home", ask.cacheHome)
            message.add("file", ask.fileName)
        case .update(let update):
            message.add("mode", Mode.update.rawValue)
            switch update.kind {
            case .flatpak: message.add("kind", "flatpak")
            case .appImage(let path): message.add("kind", "appimage"); message.add("path", path)
            case .package(let name): message.add("kind", "package"); message.add("package", name)
            case .snap(let name, let channel):
                message.add("kind", "snap")
                message.add("snap", name)
                if let channel { message.add("channel", channel) }
            }
            message.add("max_seconds", String(update.maxSeconds))
            message.add("timeout_ms", String(update.limits.timeoutMs))
            if let caFile = update.limits.caFile { message.add("ca_file", caFile) }
            message.add("proxy", update.limits.proxy.text)
            message.add("github_api", update.gitHubAPI)
            if let keys = update.trustedKeys { message.add("trusted_keys", keys) }
        case .restart(let restart):
            message.add("mode", Mode.restart.rawValue)
            message.add("cwd", restart.directory)
            if restart.wait { message.add("wait", "1") }
            for argument in restart.arguments { message.add("arg", argument) }
        }
        return message
    }

    private static func add(_ request: HTTPRequest, _ limits: TransportLimits, to message: inout HelperMessage) {
        message.add("url", request.url)
        if let body = request.body { message.add("body", Hex.encoded(body)) }
        for header in request.headers { message.add("header", header.name + ": " + header.value) }
        if request.credentialsStayWithOrigin { message.add("credentials", "1") }
        add(limits, to: &message)
    }

    private static func add(_ limits: TransportLimits, to message: inout HelperMessage) {
        message.add("timeout_ms", String(limits.timeoutMs))
        message.add("max_body_bytes", String(limits.maxBodyBytes))
        if let caFile = limits.caFile { message.add("ca_file", caFile) }
        message.add("proxy", limits.proxy.text)
    }

    /// The limits as `add` wrote them.
    private static func limits(_ message: HelperMessage) -> TransportLimits? {
        guard let timeout = message.value("timeout_ms").flatMap(HelperMessage.integer),
              let maxBody = message.value("max_body_bytes").flatMap(HelperMessage.integer),
              let proxy = message.value("proxy").flatMap({ try? ProxyRules.Setting(parsing: $0) }) else { return nil }
        var limits = TransportLimits()
        (limits.timeoutMs, limits.maxBodyBytes, limits.caFile, limits.proxy) = (timeout, maxBody, message.value("ca_file"), proxy)
        return limits
    }

    /// An exchange's request and limits, as `add` wrote them.
    private static func exchange(_ message: HelperMessage) -> (HTTPRequest, TransportLimits)? {
        guard let url = message.value("url"), let limits = limits(message) else { return nil }
        var body: [UInt8]?
        if let hex = message.value("body") {
            guard let bytes = Hex.decoded(hex) else { return nil }
            body = bytes
        }
        return (HTTPRequest(url: url, body: body, headers: message.values("header").map(HelperMessage.header),
                            credentialsStayWithOrigin: message.value("credentials") == "1"), limits)
    }

    /// A fetch's request, as `message()` wrote it; nil when malformed.
    private static func configFetch(_ message: HelperMessage) -> ConfigFetch? {
        guard let mode = message.value("mode").flatMap(FetchMode.init(rawValue:)),
              let remote = RemoteConfig(message), let language = message.value("language"),
              let limits = limits(message),
              let now = message.value("now").flatMap({ Int64(decimal: $0) }),
              let deadline = message.value("deadline_ns").flatMap({ Int64(decimal: $0) }) else { return nil }
        var environment: [String: String] = [:]
        for pair in message.values("env") {
            let (name, value) = HelperMessage.split(pair, at: "=")
            environment[name] = value
        }
        var boot: BootInstant?
        if let text = message.value("boot") {
            let (seconds, id) = HelperMessage.split(text, at: " ")
            guard let seconds = Int64(decimal: seconds), !id.isEmpty else { return nil }
            boot = BootInstant(bootID: id, seconds: seconds)
        }
        var previous: ConfigFetch.Previous?
        if message.value("previous") == "1" {
            // Each is optional, but one that is sent must parse.
            let version = message.value("template_version").map { Int64(decimal: $0) }
            let time = message.value("signature_time").map { Int64(decimal: $0) }
            let identity = message.value("identity").map { FileIdentity(wireText: $0) }
            if case .some(nil) = version { return nil }
            if case .some(nil) = time { return nil }
            if case .some(nil) = identity { return nil }
            previous = ConfigFetch.Previous(etag: message.value("etag"), templateVersion: version ?? nil,
                                            signatureTimestamp: time ?? nil, identity: identity ?? nil)
        }
        var fetch = ConfigFetch(mode: mode, remote: remote, previous: previous,
                                backoff: message.value("backoff").map { Array($0.utf8) },
                                appVersion: message.value("version"), languageCode: language, limits: limits, now: now,
                                boot: boot, deadlineNanoseconds: deadline, cacheHome: message.value("cache_home"),
                                stateHome: message.value("state_home"))
        (fetch.timeZone, fetch.platformVersion, fetch.countryCode) =
            (message.value("time_zone"), message.value("platform_version"), message.value("country"))
        fetch.environment = environment
        fetch.log = message.value("log").flatMap(LogLevel.init(rawValue:))
        return fetch
    }

    /// The request `message` carries; a refusal names what is wrong with it.
    package static func decode(_ message: HelperMessage) -> Result<HelperRequest, GateFailure> {
        guard message.value("protocol") == protocolVersion else {
            return .failure(GateFailure(.internalError, "the helper speaks protocol \(protocolVersion), "
                                        + "not \(message.value("protocol") ?? "none")"))
        }
        let malformed = GateFailure(.internalError, "the helper's \(message.value("mode") ?? "") request is malformed")
        switch message.value("mode").flatMap(Mode.init(rawValue:)) {
        case .fetch, .refresh, .background:
            guard let fetch = configFetch(message) else { return .failure(malformed) }
            return .success(.fetch(fetch))
        case .http:
            guard let (request, limits) = exchange(message) else { return .failure(malformed) }
            return .success(.http(request, limits))
        case .channel:
            guard let question = ChannelQuestion(parts: message.values("question")),
                  let (request, limits) = exchange(message),
                  let key = message.value("key"), let architecture = message.value("architecture"),
                  let previous = message.value("previous").flatMap({
                      ChannelEntry.decode(Array($0.utf8), key: key, architecture: architecture) }),
                  let now = message.value("now").flatMap({ Int64(decimal: $0) }),
                  let cacheHome = message.value("cache_home"), let file = message.value("file") else {
                return .failure(malformed)
            }
            return .success(.channel(ChannelAsk(question: question, request: request, limits: limits, previous: previous,
                                                now: now, cacheHome: cacheHome, fileName: file)))
        case .update:
            let kind: Update.Kind
            switch (message.value("kind"), message.value("path")) {
            case ("flatpak"?, _): kind = .flatpak
            case ("appimage"?, let path?): kind = .appImage(path: path)
            case ("package"?, _):
                guard let name = message.value("package") else { return .failure(malformed) }
                kind = .package(name: name)
            case ("snap"?, _):
                guard let name = message.value("snap"), SnapName.isValid(name) else { return .failure(malformed) }
                kind = .snap(name: name, channel: message.value("channel"))
            default: return .failure(malformed)
            }
            var limits = TransportLimits()
            limits.timeoutMs = message.value("timeout_ms").flatMap(HelperMessage.integer) ?? limits.timeoutMs
            limits.caFile = message.value("ca_file")
            guard let proxy = message.value("proxy").flatMap({ try? ProxyRules.Setting(parsing: $0) }) else {
                return .failure(malformed)
            }
            limits.proxy = proxy
            return .success(.update(Update(kind: kind, maxSeconds: message.value("max_seconds").flatMap(HelperMessage.integer)
                                           ?? HelperRequest.Update.defaultMaxSeconds, limits: limits,
                                           gitHubAPI: message.value("github_api") ?? ClientOptions().gitHubAPIEndpoint,
                                           trustedKeys: message.value("trusted_keys"))))
        case .restart:
            return .success(.restart(Restart(directory: message.value("cwd") ?? "/", wait: message.value("wait") == "1",
                                             arguments: message.values("arg"))))
        case nil:
            return .failure(GateFailure(.internalError, "the helper has no mode \(OneLine.quoted(message.value("mode") ?? "", max: 32))"))
        }
    }
}
