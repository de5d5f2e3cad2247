import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// A remote config as the revalidating cache asks it (docs/design.md, "One
/// revalidating cache"): the cache file and its memo, the backoff and the
/// burst's failure in the state directory, and the helper's fetch.
struct ConfigQuestion: CachedQuestion {
    typealias Entry = RemoteSource.Fetched

    let source: RemoteSource
    let request: LoadRequest
    let cacheDirectory: PrivateDirectory?
    let stateDirectory: PrivateDirectory?

    init(_ source: RemoteSource, _ request: LoadRequest) {
        (self.source, self.request) = (source, request)
        cacheDirectory = PrivateDirectory(base: request.environment.cacheHome, files: request.files)
        stateDirectory = PrivateDirectory(base: request.environment.stateHome, files: request.files)
    }

    var name: String { source.name }

    var lockPath: String? { cacheDirectory?.filePath(CachedConfig.lockName(forKey: source.remote.cacheKey)) }

    func current() -> Entry? { source.cached(cacheDirectory).map { RemoteSource.Fetched(memo: $0, origin: .cacheHit) } }

    func age(of entry: Entry) -> Int64? { source.age(of: entry.memo.entry, at: request) }

    func serverLifetimes(of entry: Entry) -> CacheLifetimes {
        CacheLifetimes(maxAge: entry.memo.entry.maxAgeSeconds, staleWhileRevalidate: entry.memo.entry.staleWhileRevalidateSeconds,
                       staleIfError: entry.memo.entry.staleIfErrorSeconds)
    }

    func backoff(_ entry: Entry?) -> (seconds: Int64, after: String)? {
        backoffBytes().flatMap(Backoff.decode)?.remainingSeconds(at: request.now).map { ($0, "throttling") }
    }

    func burstFailure() -> GateFailure? {
        let since = request.now - Int64(RefreshLimits.deadlineMilliseconds / 1000) - 1
        guard let failed = stateDirectory?.read(CachedConfig.failureName(forKey: source.remote.cacheKey), maxBytes: 4096)
            .flatMap({ BurstFailure.decode($0, since: since) }) else { return nil }
        return GateFailure(failed.kind, failed.message + " (another check's fetch; no second request in one burst)")
    }

    func request(_ entry: Entry?, mode: FetchMode) -> HelperRequest {
        var asking = request
        if mode == .background { asking.log = nil }
        return .fetch(source.helperRequest(asking, mode: mode, previous: entry?.memo, backoff: backoffBytes()))
    }

    func entry(from answer: HelperAnswer?) -> Result<Entry, GateFailure> {
        source.fetched(from: answer).map { RemoteSource.Fetched(memo: source.remember($0), origin: $0.origin, note: $0.note) }
    }

    private func backoffBytes() -> [UInt8]? {
        stateDirectory?.read(CachedConfig.backoffName(forKey: source.remote.cacheKey), maxBytes: 4096)
    }
}
