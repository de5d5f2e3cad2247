import VersionGateCore

extension HelperRequest {
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

        /// Its records after the mode (which is the fetch's own).
        func add(to message: inout HelperMessage) {
            remote.add(to: &message)
            if let previous {
                message.add("previous", "1")
                if let etag = previous.etag { message.add("etag", etag) }
                if let version = previous.templateVersion { message.add("template_version", String(version)) }
                if let time = previous.signatureTimestamp { message.add("signature_time", String(time)) }
                if let identity = previous.identity { message.add("identity", identity.wireText) }
            }
            if let backoff { message.add("backoff", String(decoding: backoff, as: UTF8.self)) }
            if let appVersion { message.add("version", appVersion) }
            message.add("language", languageCode)
            if let timeZone { message.add("time_zone", timeZone) }
            if let platformVersion { message.add("platform_version", platformVersion) }
            if let countryCode { message.add("country", countryCode) }
            limits.add(to: &message, as: .exchange)
            message.add("now", String(now))
            if let boot { message.add("boot", String(boot.seconds) + " " + boot.bootID) }
            message.add("deadline_ns", String(deadlineNanoseconds))
            for (name, value) in environment.sorted(by: { $0.key < $1.key }) { message.add("env", name + "=" + value) }
            if let cacheHome { message.add("cache_home", cacheHome) }
            if let stateHome { message.add("state_home", stateHome) }
            if let log { message.add("log", log.rawValue) }
        }

        /// The fetch as `add` wrote it; nil when malformed.
        init?(_ message: HelperMessage) {
            guard let mode = message.value("mode").flatMap(FetchMode.init(rawValue:)),
                  let remote = RemoteConfig(message), let language = message.value("language"),
                  let limits = TransportLimits(message, as: .exchange),
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
            var previous: Previous?
            if message.value("previous") == "1" {
                // Each is optional, but one that is sent must parse.
                let version = message.value("template_version").map { Int64(decimal: $0) }
                let time = message.value("signature_time").map { Int64(decimal: $0) }
                let identity = message.value("identity").map { FileIdentity(wireText: $0) }
                if case .some(nil) = version { return nil }
                if case .some(nil) = time { return nil }
                if case .some(nil) = identity { return nil }
                previous = Previous(etag: message.value("etag"), templateVersion: version ?? nil,
                                    signatureTimestamp: time ?? nil, identity: identity ?? nil)
            }
            self.init(mode: mode, remote: remote, previous: previous, backoff: message.value("backoff").map { Array($0.utf8) },
                      appVersion: message.value("version"), languageCode: language, limits: limits, now: now,
                      boot: boot, deadlineNanoseconds: deadline, cacheHome: message.value("cache_home"),
                      stateHome: message.value("state_home"))
            (timeZone, platformVersion, countryCode) =
                (message.value("time_zone"), message.value("platform_version"), message.value("country"))
            self.environment = environment
            log = message.value("log").flatMap(LogLevel.init(rawValue:))
        }
    }
}
