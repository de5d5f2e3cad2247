import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// One remote protocol (Firebase Remote Config, a self-hosted document):
/// how to ask for the config, in the helper. Whether to ask (caching,
/// freshness, backoff, single flight) is the host's (RemoteSource).
package protocol ConfigFetcher: Sendable {
    /// What is fetched, as the host described it.
    var remote: RemoteConfig { get }
    func fetch(_ context: FetchContext) throws(FetchFailure) -> FetchOutcome
}

extension ConfigFetcher {
    /// Names the source in messages.
    package var name: String { remote.name }
    /// The cache's and the state's file names' key (RemoteConfig.cacheKey).
    package var cacheKey: String { remote.cacheKey }
}

/// Everything a fetch may use; nothing else (no environment, no clock).
package struct FetchContext: Sendable {
    /// The ETag of the cached config, for If-None-Match.
    package var previousETag: String?
    /// The version being checked (Firebase's appVersion), trimmed; nil if invalid.
    package var appVersion: String?
    /// BCP 47 language of the user, e.g. "pt-BR".
    package var languageCode: String
    package var transport: any HTTPTransport
    /// Caps for each request; its timeoutMs is replaced by what `deadline` has left.
    package var limits: TransportLimits
    /// One deadline for the whole fetch, every request included.
    package var deadline: Deadline
    /// Where protocol state (the Firebase installation) persists; nil = nowhere.
    package var state: PrivateDirectory?
    /// Wall clock, Unix seconds (injected so tests and simulations control it).
    package var now: Int64
    /// Device facts a protocol may send (time zone, OS version, country).
    package var device: DeviceFacts
    /// Firebase's X-Firebase-RC-Fetch-Type, as the SDKs mark a realtime
    /// fetch ("REALTIME/1"); nil for an ordinary fetch.
    package var fetchType: String? = nil

    package init(previousETag: String?, appVersion: String?, languageCode: String, transport: any HTTPTransport,
                 limits: TransportLimits, deadline: Deadline, state: PrivateDirectory?, now: Int64, device: DeviceFacts) {
        (self.previousETag, self.appVersion, self.languageCode, self.transport) = (previousETag, appVersion, languageCode, transport)
        (self.limits, self.deadline, self.state, self.now, self.device) = (limits, deadline, state, now, device)
    }

    /// `limits` with the time the deadline has left.
    package var requestLimits: TransportLimits {
        var limits = self.limits
        limits.timeoutMs = deadline.remainingMilliseconds
        return limits
    }
}

package enum FetchOutcome: Sendable {
    /// New values (templateVersion, if any, is in the config); `lifetime`
    /// is what the server's Cache-Control said, if anything.
    case updated(GateConfig, etag: String?, lifetime: CacheLifetime?, note: String?)
    /// What the cache holds is still current.
    case notModified(lifetime: CacheLifetime?, note: String?)
    /// The remote has no config (Firebase EMPTY_CONFIG / NO_TEMPLATE): no thresholds.
    case empty(templateVersion: Int64?, note: String?)
}

/// A fetch that produced no usable answer.
package struct FetchFailure: Error, Sendable {
    package let failure: GateFailure
    /// Server asked us to back off (429, 500, 503, 504): start or extend the backoff.
    package let throttled: Bool
    /// Retry-After in seconds, when the server sent one over https.
    package let retryAfterSeconds: Int?

    package init(_ failure: GateFailure, throttled: Bool = false, retryAfterSeconds: Int? = nil) {
        self.failure = failure
        self.throttled = throttled
        self.retryAfterSeconds = retryAfterSeconds
    }
}
