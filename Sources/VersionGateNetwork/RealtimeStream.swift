import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Remote Config's realtime stream, held by the watcher that holds its
/// source's lock (docs/design.md, "Watching a source"), as the official
/// SDKs hold it: one long POST to `…/namespaces/firebase:streamFetchInvalidations`,
/// whose chunked answer carries `latestTemplateVersionNumber`; a newer one
/// than the cache's is fetched once, after the SDKs' random 0-3 s wait
/// (a fleet's fetches spread out after a publish), marked `REALTIME/n`.
/// `featureDisabled` ends realtime for the run; `retryIntervalSeconds`
/// and failed connections pace the reconnects as the SDKs pace them.
final class RealtimeStream: SourceWatch {
    private var fetch: HelperRequest.ConfigFetch
    private let firebase: RemoteConfig.Firebase
    private let endpoint: String
    private let notify: () -> Bool
    private var known: Int64
    private var pacing = RealtimePacing()
    private var disabled = false

    init(_ fetch: HelperRequest.ConfigFetch, firebase: RemoteConfig.Firebase, endpoint: String, notify: @escaping () -> Bool) {
        var fetch = fetch
        (fetch.mode, fetch.log) = (.refresh, nil)
        (self.fetch, self.firebase, self.endpoint, self.notify) = (fetch, firebase, endpoint, notify)
        known = fetch.previous?.templateVersion ?? 0
    }

    func millisecondsToNextStep() -> Int { pacing.millisecondsToNextAttempt() }

    /// One connection, read until it ends.
    func step() -> SourceWatchStep {
        guard pacing.mayAttempt() else { return .ended }
        // What the cache holds now (the host's check, another watcher's fetch) is known.
        if let cached = fetch.cachedEntry {
            known = max(known, cached.config.templateVersion ?? 0)
            if fetch.previous == nil || (fetch.previous?.templateVersion ?? 0) < known {
                fetch.previous = .init(etag: cached.etag, templateVersion: cached.config.templateVersion,
                                       signatureTimestamp: cached.config.signature?.timestamp, identity: nil)
            }
        }
        var assembler = RealtimeMessages()
        var status: Int?
        do {
            let response = try CurlTransport().stream(request(), limits: fetch.limits, maxSeconds: Self.maxStreamSeconds) {
                status, bytes in
                for message in assembler.add(bytes) where !handle(message) { return false }
                return true
            }
            status = response.status
        } catch {
            // A stream that answered 200 and then ran out its time ended as the server would end it.
            if assembler.answered { status = 200 }
        }
        if disabled { return .ended }
        return pacing.ended(status: status) ? .quiet : .ended
    }

    /// The longest one connection is held: then it is opened again.
    static let maxStreamSeconds = 3600

    /// A message's effect; false ends the stream.
    private func handle(_ message: JSONValue) -> Bool {
        if case .bool(true)? = message["featureDisabled"] {
            disabled = true
            return false
        }
        if let latest = Self.number(message["latestTemplateVersionNumber"]), latest > known {
            fetchNewer(than: latest)
        }
        if let seconds = Self.number(message["retryIntervalSeconds"]) { pacing.retry(afterSeconds: seconds) }
        return true
    }

    /// Up to three fetches, each after a random 0-3 s, until the cache holds `target`.
    private func fetchNewer(than target: Int64) {
        for attempt in 1...3 {
            sleep(UInt32.random(in: 0...3))
            guard let entry = fetch.fetchNow(fetchType: "REALTIME/\(attempt)"),
                  (entry.config.templateVersion ?? 0) >= target else { continue }
            known = target
            _ = notify()
            return
        }
    }

    /// The stream's request, as the SDKs send it.
    private func request() -> HTTPRequest {
        let project = PercentEncoding.encoded(firebase.projectID)
        let url = ASCII.withoutTrailingSlashes(endpoint) + "/v1/projects/\(project)/namespaces/firebase:streamFetchInvalidations?key="
            + PercentEncoding.encoded(firebase.apiKey)
        let context = FetchContext(previousETag: nil, appVersion: fetch.appVersion, languageCode: fetch.languageCode,
                                   transport: CurlTransport(), limits: fetch.limits,
                                   deadline: Deadline(afterMilliseconds: fetch.limits.timeoutMs),
                                   state: PrivateDirectory(base: fetch.stateHome, files: POSIXFiles()),
                                   now: HelperRequest.ConfigFetch.wallClock(), device: DeviceFacts())
        let installation = FirebaseInstallations(projectID: firebase.projectID, apiKey: firebase.apiKey, appID: firebase.appID,
                                                 endpoint: firebase.installationsEndpoint).resolve(context)
        var headers = [(name: "X-Goog-Api-Key", value: firebase.apiKey), (name: "Content-Type", value: "application/json"),
                       (name: "Accept", value: "application/json"), (name: "X-Accept-Response-Streaming", value: "true"),
                       (name: "If-None-Match", value: fetch.previous?.etag ?? "*")]
        if let token = installation.token { headers.append((name: "X-Goog-Firebase-Installations-Auth", value: token)) }
        let body = JSONValue.object([
            "project": .string(firebase.projectID), "namespace": .string("firebase"),
            "lastKnownVersionNumber": .string(String(known)), "appId": .string(firebase.appID),
            "sdkVersion": .string(FirebaseFetcher.sdkVersion), "appInstanceId": .string(installation.fid),
        ])
        return HTTPRequest(url: url, body: body.encoded(), headers: headers, credentialsStayWithOrigin: true)
    }

    /// A version number as the stream sends it: a decimal string or a number.
    static func number(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text)?: Int64(decimal: text)
        case .number(let number)?: number >= 0 && number < 9e15 && number == number.rounded() ? Int64(number) : nil
        default: nil
        }
    }
}
