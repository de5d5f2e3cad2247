import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// A remote source's fetch, the helper's side (docs/design.md, "The fetch
/// helper"): the host decided it (no fresh cache, its lock handed on, no
/// backoff); here the exchange is made, the answer verified against what
/// the host's entry says, and the next entry, or the failure and backoff,
/// written. Nothing here decides whether to fetch.
package enum ConfigService {
    /// `fetchType`: Firebase's mark of a realtime fetch (docs/design.md, "Watching a source").
    package static func fetch(_ request: HelperRequest.ConfigFetch, transport: any HTTPTransport = CurlTransport(),
                              fetchType: String? = nil, interim: (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        let fetcher: any ConfigFetcher
        switch request.remote.fetcher() {
        case .failure(let failure): return .failed(failure)
        case .success(let made): fetcher = made
        }
        let log = request.log.map(CallLog.init(threshold:))
        let files = POSIXFiles()
        let directories = (cache: PrivateDirectory(base: request.cacheHome, files: files),
                           state: PrivateDirectory(base: request.stateHome, files: files))
        let answer: HelperAnswer
        switch exchange(request, fetcher, directories, transport: transport, fetchType: fetchType, log: log) {
        case .failure(let failure): answer = .failed(failure)
        case .success(let written):
            answer = .fetched(origin: .freshFetch, note: written.note, entry: written.entry.encoded(), identity: written.identity)
        }
        if let curl = CurlTransport.loadedVersion { log?.add(.debug, "fetched with libcurl \(curl)") }
        for line in log?.recorded ?? [] { _ = interim(.log(line.level, line.message)) }
        return answer
    }

    private typealias Directories = (cache: PrivateDirectory?, state: PrivateDirectory?)

    /// The exchange, then its outcome written: a failure for the burst's
    /// waiters (and a longer backoff when the server throttled), or the
    /// next entry.
    private static func exchange(_ request: HelperRequest.ConfigFetch, _ fetcher: any ConfigFetcher,
                                 _ directories: Directories, transport: any HTTPTransport, fetchType: String?,
                                 log: CallLog?) -> Result<Written, GateFailure> {
        let name = fetcher.name, key = fetcher.cacheKey
        var context = FetchContext(
            previousETag: request.previous?.etag, appVersion: request.appVersion, languageCode: request.languageCode,
            transport: transport, limits: request.limits, deadline: Deadline(atNanoseconds: request.deadlineNanoseconds),
            state: directories.state, now: request.now,
            device: DeviceFacts(timeZone: request.timeZone, platformVersion: request.platformVersion,
                                countryCode: request.countryCode))
        context.fetchType = fetchType
        log?.add(.info, "\(name): fetching (\(context.deadline.remainingMilliseconds) ms left)")
        let outcome: FetchOutcome
        do {
            outcome = try fetcher.fetch(context)
        } catch {
            log?.add(.info, "\(name): fetch failed: \(error.failure.message)")
            directories.state?.write(CachedConfig.failureName(forKey: key), BurstFailure(error.failure, at: request.now).encoded())
            if error.throttled, let state = directories.state {
                var random = SystemRandom()
                let next = Backoff.after(request.backoff.flatMap(Backoff.decode), now: request.now,
                                         retryAfterSeconds: error.retryAfterSeconds, random: &random)
                state.write(CachedConfig.backoffName(forKey: key), next.encoded())
                log?.add(.warning, "\(name): the server asked to back off: no request for \(next.until &- request.now) s")
            }
            return .failure(error.failure)
        }
        directories.state?.remove(CachedConfig.backoffName(forKey: key))
        directories.state?.remove(CachedConfig.failureName(forKey: key))
        return entry(outcome, request, fetcher, directories, log: log).flatMap { entry, note in
            var entry = entry
            entry.realtime = fetchType != nil
            return admitted(entry, request, fetcher, directories).map { written(entry, note: note, key: key, directories.cache) }
        }
    }

    /// The next entry the outcome makes, with the fetch's note.
    private static func entry(_ outcome: FetchOutcome, _ request: HelperRequest.ConfigFetch, _ fetcher: any ConfigFetcher,
                              _ directories: Directories, log: CallLog?) -> Result<(CachedConfig, String?), GateFailure> {
        let name = fetcher.name, key = fetcher.cacheKey
        switch outcome {
        case .updated(let config, let etag, let lifetime, let why):
            log?.add(.info, "\(name): fetched a new config" + (config.templateVersion.map { " (template version \($0))" } ?? ""))
            return .success((CachedConfig(key: key, fetchedAt: request.now, fetchedAtBoot: request.boot, etag: etag,
                                          maxAgeSeconds: lifetime?.maxAgeSeconds,
                                          staleWhileRevalidateSeconds: lifetime?.staleWhileRevalidateSeconds,
                                          staleIfErrorSeconds: lifetime?.staleIfErrorSeconds, empty: false, config: config), why))
        case .empty(let templateVersion, let why):
            log?.add(.info, "\(name): fetched: the remote has no config (no thresholds)")
            return .success((CachedConfig(key: key, fetchedAt: request.now, fetchedAtBoot: request.boot, etag: nil,
                                          maxAgeSeconds: nil, empty: true, config: GateConfig(templateVersion: templateVersion)),
                             why))
        case .notModified(let lifetime, let why):
            log?.add(.info, "\(name): fetched: not modified")
            // The entry the host read, renewed: the same file (by identity), whose ETag the server confirmed.
            guard let previous = request.previous, var kept = cachedEntry(key, previous, directories.cache) else {
                return .failure(.config("\(name): the server says nothing changed, but nothing is cached"))
            }
            kept.fetchedAt = request.now
            kept.fetchedAtBoot = request.boot
            kept.maxAgeSeconds = lifetime?.maxAgeSeconds ?? kept.maxAgeSeconds
            kept.staleWhileRevalidateSeconds = lifetime?.staleWhileRevalidateSeconds ?? kept.staleWhileRevalidateSeconds
            kept.staleIfErrorSeconds = lifetime?.staleIfErrorSeconds ?? kept.staleIfErrorSeconds
            return .success((kept, why))
        }
    }

    /// The host's entry, read again from its file: only when it is still
    /// the one the host read and its ETag is the one the server confirmed.
    private static func cachedEntry(_ key: String, _ previous: HelperRequest.ConfigFetch.Previous,
                                    _ cache: PrivateDirectory?) -> CachedConfig? {
        guard let cache, let etag = previous.etag else { return nil }
        let path = cache.filePath(CachedConfig.fileName(forKey: key))
        guard let read = try? cache.files.read(path, maxBytes: CachedConfig.maxFileBytes, trust: .private),
              previous.identity.map({ $0 == read.identity }) ?? true,
              let entry = CachedConfig.decode(read.bytes, key: key), entry.etag == etag else { return nil }
        return entry
    }

    /// No config older than the host's: its template version, and a signed
    /// document's signing time (SignedTimestamps keeps the newest seen).
    private static func admitted(_ entry: CachedConfig, _ request: HelperRequest.ConfigFetch, _ fetcher: any ConfigFetcher,
                                 _ directories: Directories) -> Result<Void, GateFailure> {
        let name = fetcher.name
        if let old = request.previous?.templateVersion, let new = entry.config.templateVersion, new < old {
            return .failure(.config("\(name): template version \(new) is older than the cached \(old); rejected"))
        }
        guard case .document(_, _?) = request.remote, let signature = entry.config.signature else { return .success(()) }
        return SignedTimestamps(directories.state).admit(signature, for: fetcher.cacheKey,
                                                         alsoSeen: request.previous?.signatureTimestamp, document: name)
    }

    /// The entry written to the cache, with the identity of the file just
    /// written, so the host does not read back what it was handed. Written by
    /// rename, so a later writer gives the file a new inode; one renamed in
    /// between our rename and this stat (another process's fetch of the same
    /// moment) would pass as ours.
    private static func written(_ entry: CachedConfig, note: String?, key: String, _ cache: PrivateDirectory?) -> Written {
        let name = CachedConfig.fileName(forKey: key)
        let path = cache.flatMap { $0.write(name, entry.encoded()) ? $0.filePath(name) : nil }
        return Written(entry: entry, identity: path.flatMap { cache?.files.identity(of: $0) }, note: note)
    }

    /// The entry answered with, and its file when it was written.
    private struct Written {
        let entry: CachedConfig
        let identity: FileIdentity?
        let note: String?
    }
}
