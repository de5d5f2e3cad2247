import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// The App Store's numeric id for a bundle id, from the iTunes Lookup API
/// (protocols README §3): GET `{endpoint}/lookup?bundleId={id}&country={cc}`.
/// Apple answers HTTP 200 even for "not found" (`resultCount: 0`), frames
/// the JSON with newlines and labels it `text/javascript`, so the status must
/// be 200 and the body is read as JSON whatever its content type.
///
/// A resolved trackId never changes for an app, so it is cached without
/// expiry per (endpoint, bundle id, country); failures are not cached (the
/// next call asks again). A cache file that does not read back exactly is
/// ignored and replaced.
package struct AppStoreLookup: Sendable {
    package static let cacheFormat = 1
    package static let maxTrackID = ChannelDocuments.maxTrackID

    package var endpoint: String
    package var transport: any HTTPTransport
    package var limits: TransportLimits
    /// Where resolved ids are kept (`$XDG_CACHE_HOME/versiongate`); nil = no cache.
    package var cache: PrivateDirectory?

    package init(endpoint: String = ClientOptions().itunesEndpoint, transport: any HTTPTransport = HelperTransport(),
         limits: TransportLimits = TransportLimits(), cache: PrivateDirectory?) {
        self.endpoint = ASCII.withoutTrailingSlashes(endpoint)
        self.transport = transport
        self.limits = limits
        self.cache = cache
    }

    package struct Answer: Sendable, Equatable {
        /// nil when no id could be had; `reason` then says why.
        package var trackID: Int64?
        package var reason: String?
        package var fromCache = false
    }

    /// The trackId of `bundleID` in storefront `country`, from the cache or
    /// one request. Never throws, never waits past `limits.timeoutMs`.
    package func trackID(bundleID: String, country: String) -> Answer {
        if let why = AppID.bundleIDRefusal(bundleID) { return Answer(reason: "bundle \(why)") }
        guard let cc = StoreKind.countryCode(country) else {
            return Answer(reason: "country \(OneLine.quoted(country, max: 16)) must be 2 letters")
        }
        let key = "\(endpoint) \(bundleID) \(cc)"
        if let cached = readCache(key) { return Answer(trackID: cached, fromCache: true) }
        guard limits.timeoutMs > 0 else { return Answer(reason: "no time left for the iTunes lookup: the deadline passed") }
        let url = "\(endpoint)/lookup?bundleId=\(PercentEncoding.encoded(bundleID))&country=\(cc)"
        let response: HTTPResponse
        do {
            response = try transport.send(HTTPRequest(url: url), limits: limits)
        } catch {
            return Answer(reason: "iTunes lookup failed: \(error.message)")
        }
        guard response.status == 200 else { return Answer(reason: "iTunes lookup answered HTTP \(response.status)") }
        switch Self.trackID(fromBody: response.body, bundleID: bundleID) {
        case .failure(let problem):
            return Answer(reason: "iTunes lookup: \(problem.reason)")
        case .success(let id):
            writeCache(key, id)
            return Answer(trackID: id)
        }
    }

    /// The first result's `trackId` from a lookup body (ChannelDocuments.appStoreTrackID).
    package static func trackID(fromBody body: [UInt8], bundleID: String) -> Result<Int64, StoreURLPolicy.Refusal> {
        ChannelDocuments.appStoreTrackID(body, bundleID: bundleID).mapError { .init(reason: $0.reason) }
    }

    /// A trackId the channel's lookup brought (the same exchange: docs/design.md,
    /// "Asking the channel"), kept as if this lookup had made it.
    package func remember(_ id: Int64, bundleID: String, country: String) {
        guard let cc = StoreKind.countryCode(country), (1...Self.maxTrackID).contains(id) else { return }
        let key = "\(endpoint) \(bundleID) \(cc)"
        if readCache(key) != id { writeCache(key, id) }
    }

    // MARK: - cache

    private static func fileName(_ key: String) -> String { "itunes-\(fnv1a64Hex(key)).json" }

    private func readCache(_ key: String) -> Int64? {
        guard let cache, let bytes = cache.read(Self.fileName(key), maxBytes: 4096),
              let value = try? JSONValue.decode(bytes),
              case .number(Double(Self.cacheFormat))? = value["format"],
              case .string(key)? = value["key"],
              case .string(let text)? = value["track_id"],
              let id = Int64(decimal: text), (1...Self.maxTrackID).contains(id) else { return nil }
        return id
    }

    private func writeCache(_ key: String, _ id: Int64) {
        let entry = JSONValue.object(["format": .number(Double(Self.cacheFormat)), "key": .string(key),
                                      "track_id": .string(String(id))])
        cache?.write(Self.fileName(key), entry.encoded())
    }
}
