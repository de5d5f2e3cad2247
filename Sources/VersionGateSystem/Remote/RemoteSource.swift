import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// A remote config behind the cache (docs/design.md, "Sources and the cache"). Per check: a fresh cached
/// config answers without network; a stale one within the
/// stale-while-revalidate window answers at once and one refresh starts in
/// the background (docs/design.md, "The background refresh"); otherwise one
/// fetch (one per login burst; none while backing off), made in the fetch
/// helper (docs/design.md, "The fetch helper"); when that fails, the cache
/// if younger than `maxStale` (or the server's stale-if-error), else the
/// embedded default, else no config (UP_TO_DATE).
package final class RemoteSource: ConfigSource {
    /// What the client's options say (their defaults are the option
    /// table's), and where fetches run.
    package struct Settings: Sendable {
        package var cacheTTLSeconds: Int64
        /// 0 = a failed fetch never falls back to the cache.
        package var maxStaleSeconds: Int64
        package var limits = TransportLimits()
        /// Where fetches are served: the helper program (every host), or a test's door.
        package var helper: any HelperDoor
        /// The local gate document used when no remote config can be had.
        package var defaults: LocalDocumentSource?
        /// Set with `trusted_keys`: a cached config counts only if a key
        /// trusted now signed it (the fetcher verifies new ones).
        package var trust: DocumentTrust?
        /// After the TTL, how long a stale cache answers at once while a
        /// refresh runs behind it; 0 = fetch first (as before the window).
        package var staleWhileRevalidateSeconds: Int64
        package var backgroundRefresh: ClientOptions.BackgroundRefresh
        /// The administrator's policy file that allows no network: then only
        /// the cache decides, whatever its age, else the defaults.
        package var networkForbiddenBy: String?

        package init(_ options: ClientOptions, helper: any HelperDoor) {
            cacheTTLSeconds = options.cacheTTLSeconds
            maxStaleSeconds = options.maxStaleSeconds
            limits.timeoutMs = options.timeoutMs
            limits.caFile = options.tlsCAFile
            limits.proxy = options.proxy
            let trust = DocumentTrust(options)
            self.trust = trust
            defaults = options.defaultsPath.map { LocalDocumentSource(path: $0, platform: options.platform, trust: trust) }
            staleWhileRevalidateSeconds = options.staleWhileRevalidateSeconds
            backgroundRefresh = options.backgroundRefresh
            networkForbiddenBy = options.networkForbiddenBy
            self.helper = helper
        }
    }

    /// What is fetched: the helper is told exactly this.
    package let remote: RemoteConfig
    package let platform: String
    package let settings: Settings
    private let memo = Mutex<Memo?>(nil)

    /// The newest good entry this process knows, with its snapshot built.
    private struct Memo {
        package let entry: CachedConfig
        package let snapshot: GateSnapshot
        /// Identity of the cache file it was read from or written to; nil if
        /// unknown (not written, or read while it could still change unseen).
        package let identity: FileIdentity?

        func fetched(_ origin: LoadedConfig.Origin) -> FetchedConfig {
            FetchedConfig(entry: entry, identity: identity, origin: origin, note: nil)
        }
    }

    package init(remote: RemoteConfig, platform: String, settings: Settings) {
        self.remote = remote
        self.platform = platform
        self.settings = settings
    }

    package var name: String { remote.name }

    /// Firebase's FID for this project and app, as the helper's fetch
    /// registered it (the rollout bucket uses it); nil for a document.
    package func installationID(state: PrivateDirectory) -> String? {
        guard case .firebase(let firebase) = remote else { return nil }
        return state.read(FirebaseInstallation.fileName(projectID: firebase.projectID, appID: firebase.appID),
                          maxBytes: FirebaseInstallation.maxFileBytes).flatMap(FirebaseInstallation.decode)?.fid
    }

    package func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure> {
        var request = request
        request.boot = request.bootClock()   // once per load; local documents never pay for it
        let cacheDirectory = PrivateDirectory(base: request.environment.cacheHome, files: request.files)
        if let file = settings.networkForbiddenBy {
            let failure = GateFailure(.network, "\(name): not fetched: the administrator's policy (\(file)) allows no network")
            guard let hit = cached(cacheDirectory) else { return fallback(nil, failure, request) }
            let fresh = isFresh(hit.entry, at: request)
            request.log?.add(.info, "\(name): deciding from the cache (\(age(of: hit.entry, at: request) ?? 0) s old): "
                             + failure.message)
            return .success(loaded(hit, fresh ? .cacheHit : .cacheAfterError, at: request, fetchFailure: fresh ? nil : failure))
        }
        if let hit = cached(cacheDirectory) {
            switch use(of: hit.entry, at: request) {
            case .fresh:
                request.log?.add(.debug, "\(name): cached config is fresh (\(age(of: hit.entry, at: request) ?? 0) s old)")
                return .success(loaded(hit, .cacheHit, at: request))
            case .staleWhileRevalidate:
                request.log?.add(.debug, "\(name): cached config is stale (\(age(of: hit.entry, at: request) ?? 0) s old); "
                                 + "deciding from it while it is refreshed")
                // No refresh could run (an unwritable cache, no helper):
                // then a fetch first, as without the window.
                let stateDirectory = PrivateDirectory(base: request.environment.stateHome, files: request.files)
                guard startRefresh(request, cacheDirectory, stateDirectory) else { break }
                return .success(loaded(hit, .staleCache, at: request))
            case .fetch:
                break
            }
        }
        switch fetch(request, mode: .fetchFirst) {
        case .success(let fetched):
            return .success(loaded(remember(fetched), fetched.origin, at: request, note: fetched.note))
        case .failure(let failure):
            return fallback(cached(cacheDirectory), failure, request)
        }
    }

    /// Brings the cache up to date unless it is fresh, with the same login-
    /// burst lock, backoff, signature and rollback rules as a check's fetch:
    /// what `vg_client_refresh` and a background refresh run.
    package func revalidate(_ request: LoadRequest) -> Result<LoadedConfig.Origin, GateFailure> {
        if let file = settings.networkForbiddenBy {
            return .failure(GateFailure(.network, "\(name): not refreshed: the administrator's policy (\(file)) allows no network"))
        }
        switch fetch(request, mode: .refresh) {
        case .success(let fetched):
            _ = remember(fetched)
            request.log?.add(.info, "\(name): refreshed (\(fetched.origin.rawValue))")
            return .success(fetched.origin)
        case .failure(let failure):
            request.log?.add(.info, "\(name): refresh failed; the cache stays as it was: \(failure.message)")
            return .failure(failure)
        }
    }

    /// One fetch, decided here and made in the helper (docs/design.md, "The
    /// fetch helper"): under the login burst's lock, unless the cache became
    /// fresh meanwhile, another check's fetch of this burst failed, or the
    /// server asked us to back off. Launchers of this source starting
    /// together (a login), and threads of one host, share one request: the
    /// first to lock fetches, the others wait for the lock (at most their
    /// deadline) and then find the cache it wrote. One still held then is a
    /// fetch that outlasts the waiter's deadline too: it fails open rather
    /// than send a second request; so does a waiter whose holder's fetch just
    /// failed (it tells that failure). The helper holds the lock from then on.
    private func fetch(_ request: LoadRequest, mode: FetchMode) -> Result<FetchedConfig, GateFailure> {
        var request = request
        if request.boot == nil { request.boot = request.bootClock() }
        let cacheDirectory = PrivateDirectory(base: request.environment.cacheHome, files: request.files)
        let stateDirectory = PrivateDirectory(base: request.environment.stateHome, files: request.files)
        if let cached = cached(cacheDirectory), isFresh(cached.entry, at: request) { return .success(cached.fetched(.cacheHit)) }
        let lockPath = cacheDirectory.map { $0.filePath(CachedConfig.lockName(forKey: remote.cacheKey)) }
        var attempt = lockPath.map { request.files.lock($0, until: Deadline(afterMilliseconds: 0)) }
        var waited = false
        if case .busy = attempt, request.deadline.remainingMilliseconds > 0, let lockPath {
            waited = true
            attempt = request.files.lock(lockPath, until: request.deadline)
        }
        if case .busy = attempt {
            return .failure(GateFailure(.timeout, "\(name): the deadline passed while another check was fetching it"))
        }
        let burst = attempt?.lock
        let cached = self.cached(cacheDirectory)
        if burst != nil, let cached, isFresh(cached.entry, at: request) { return .success(cached.fetched(.cacheHit)) }
        if waited, let failed = stateDirectory?.read(CachedConfig.failureName(forKey: remote.cacheKey), maxBytes: 4096)
            .flatMap({ BurstFailure.decode($0, since: request.now - Int64(RefreshLimits.deadlineMilliseconds / 1000) - 1) }) {
            return .failure(GateFailure(failed.kind, failed.message + " (another check's fetch; no second request in one burst)"))
        }
        let backoff = stateDirectory?.read(CachedConfig.backoffName(forKey: remote.cacheKey), maxBytes: 4096)
        if let wait = backoff.flatMap(Backoff.decode)?.remainingSeconds(at: request.now) {
            return .failure(GateFailure(.backoff, "\(name): backing off after throttling; no request until \(wait) s from now"))
        }
        request.log?.add(.info, "\(name): fetching in the helper (\(request.deadline.remainingMilliseconds) ms left)")
        let fetch = helperRequest(request, mode: mode, previous: cached, backoff: backoff)
        let answer = settings.helper.call(.fetch(fetch), until: request.deadline, handingOn: burst) {
            if case .log(let level, let line) = $0 { request.log?.add(level, "helper: " + line) }
            return true
        }
        switch answer {
        // The helper's own failure says what failed; one of starting or hearing it does not.
        case .failure(let failure): return .failure(GateFailure(failure.kind, "\(name): \(failure.message)"))
        case .success(.failed(let failure)?): return .failure(failure)
        case .success(let answer): return fetched(from: answer)
        }
    }

    /// What a flight brought, as this source's memo (another client's
    /// source may have fetched it: the snapshot is built for this one's platform).
    private func remember(_ fetched: FetchedConfig) -> Memo {
        if let known = memo.withLock({ $0 }), known.entry == fetched.entry { return known }
        let fresh = Memo(entry: fetched.entry, snapshot: snapshot(fetched.entry), identity: fetched.identity)
        memo.withLock { $0 = fresh }
        return fresh
    }

    // MARK: The helper's request and answer (docs/design.md, "The fetch helper")

    /// The fetch as the host decided it: what to fetch, what the cache
    /// holds, the backoff to extend, the device's facts and the deadline.
    private func helperRequest(_ request: LoadRequest, mode: FetchMode, previous: Memo?, backoff: [UInt8]?)
        -> HelperRequest.ConfigFetch {
        let deadline = mode == .background ? Deadline(afterMilliseconds: RefreshLimits.deadlineMilliseconds) : request.deadline
        let entry = previous?.entry
        var fetch = HelperRequest.ConfigFetch(
            mode: mode, remote: remote,
            previous: entry.map { .init(etag: $0.etag, templateVersion: $0.config.templateVersion,
                                         signatureTimestamp: $0.config.signature?.timestamp, identity: previous?.identity) },
            backoff: backoff, appVersion: request.appVersion, languageCode: request.languageCode, limits: settings.limits,
            now: request.now, boot: request.boot, deadlineNanoseconds: deadline.nanoseconds,
            cacheHome: request.environment.cacheHome, stateHome: request.environment.stateHome)
        let device = DeviceFacts.read(request.environment)
        (fetch.timeZone, fetch.platformVersion, fetch.countryCode) = (device.timeZone, device.platformVersion, device.countryCode)
        fetch.environment = request.environment.forwarded.filter { HelperRequest.ConfigFetch.proxyNames.contains($0.key) }
        fetch.log = request.log?.threshold
        return fetch
    }

    /// The helper's answer as a fetch's outcome.
    private func fetched(from answer: HelperAnswer?) -> Result<FetchedConfig, GateFailure> {
        guard case .fetched(let origin, let note, let bytes, let identity)? = answer,
              let entry = CachedConfig.decode(bytes, key: remote.cacheKey) else {
            return .failure(GateFailure(.internalError, "\(name): the fetch helper's answer is malformed"))
        }
        if let trust = settings.trust, !trust.stillTrusts(entry.config) {
            return .failure(GateFailure(.signature, "\(name): the config the fetch helper brought "
                                        + "was not verified with these trusted_keys"))
        }
        return .success(FetchedConfig(entry: entry, identity: identity, origin: origin, note: note))
    }

    // MARK: The background refresh (docs/design.md, "The background refresh")

    /// Starts one refresh behind a check that answered from a stale cache,
    /// unless one is under way (its holder has the login-burst lock), the
    /// server asked us to back off, or this is a fork() child.
    /// false when none is running or could be started (the check then
    /// fetches first); true also when one is under way or the server asked
    /// us to back off (then the stale cache answers without a request).
    private func startRefresh(_ request: LoadRequest, _ cacheDirectory: PrivateDirectory?,
                              _ stateDirectory: PrivateDirectory?) -> Bool {
        guard ForkGuard.refusal == nil, let cacheDirectory else { return false }
        let backoff = stateDirectory?.read(CachedConfig.backoffName(forKey: remote.cacheKey), maxBytes: 4096)
        if let wait = backoff.flatMap(Backoff.decode)?.remainingSeconds(at: request.now) {
            request.log?.add(.info, "\(name): no refresh started: backing off after throttling for \(wait) s more")
            return true
        }
        let lockPath = cacheDirectory.filePath(CachedConfig.lockName(forKey: remote.cacheKey))
        let lock: FileLock
        switch request.files.lock(lockPath, until: Deadline(afterMilliseconds: 0)) {
        case .acquired(let held): lock = held   // handed on: the helper holds it until it exits
        case .busy:
            request.log?.add(.debug, "\(name): a fetch is already under way (\(lockPath) is locked)")
            return true
        case .unavailable:
            request.log?.add(.info, "\(name): no refresh can be started (the cache cannot be written); fetching first")
            return false
        }
        var refreshing = request
        refreshing.log = nil
        let fetch = helperRequest(refreshing, mode: .background, previous: cached(cacheDirectory), backoff: backoff)
        switch settings.helper.start(.fetch(fetch), handingOn: lock) {
        case .success(let pid):
            request.log?.add(.info, "\(name): started a background refresh (fetch helper, pid \(pid))")
            return true
        case .failure(let failure):
            request.log?.add(.warning, "\(name): no background refresh could be started (\(failure.message)); "
                             + "fetching first")
            return false
        }
    }

    /// After a failed or skipped fetch: the cache while not too stale, else
    /// the embedded default, else no config at all.
    private func fallback(_ cached: Memo?, _ failure: GateFailure, _ request: LoadRequest)
        -> Result<LoadedConfig, GateFailure> {
        if let cached, CacheFreshness.isFallback(
            age: age(of: cached.entry, at: request),
            maxStaleSeconds: CacheFreshness.fallbackLimit(maxStaleSeconds: settings.maxStaleSeconds,
                                                          staleIfErrorSeconds: cached.entry.staleIfErrorSeconds)) {
            return .success(loaded(cached, .cacheAfterError, at: request, fetchFailure: failure))
        }
        guard let defaults = settings.defaults else { return .failure(failure) }
        switch defaults.load(request) {
        case .success(let local):
            return .success(LoadedConfig(snapshot: local.snapshot, origin: .embeddedDefault, fetchFailure: failure,
                                         note: local.note))
        case .failure(let refused):
            // Both are worth fixing; the defaults problem is the operator's own
            // (an untrusted signature keeps its own code).
            let kind: GateFailure.Kind = refused.kind == .signature ? .signature : .config
            return .failure(GateFailure(kind, "defaults: \(refused.message); and \(failure.message)"))
        }
    }

    /// `note`: the fetch's, said before a signature's replay note.
    private func loaded(_ memo: Memo, _ origin: LoadedConfig.Origin, at request: LoadRequest,
                        fetchFailure: GateFailure? = nil, note: String? = nil) -> LoadedConfig {
        let replay = settings.trust == nil ? nil
            : SignatureCheck.replayNote(memo.entry.config.signature, signatureName: name + ".minisig")
        if let replay { request.log?.add(.warning, replay) }
        return LoadedConfig(snapshot: memo.snapshot, origin: origin, ageSeconds: age(of: memo.entry, at: request),
                            fetchFailure: fetchFailure, note: joinNotes(note, replay))
    }

    private func isFresh(_ entry: CachedConfig, at request: LoadRequest) -> Bool {
        CacheFreshness.isFresh(age: age(of: entry, at: request), maxAgeSeconds: entry.maxAgeSeconds,
                               ttlSeconds: settings.cacheTTLSeconds)
    }

    /// Fresh, stale within the window (when a refresh can run behind the
    /// check), or due for a fetch first. `max_stale_s` 0 ("never decide
    /// from a stale cache") closes the window too.
    private func use(of entry: CachedConfig, at request: LoadRequest) -> CacheFreshness.Use {
        let off = settings.backgroundRefresh == .off || settings.maxStaleSeconds == 0
        let window = off ? 0 : settings.staleWhileRevalidateSeconds
        return CacheFreshness.use(age: age(of: entry, at: request), maxAgeSeconds: entry.maxAgeSeconds,
                                  ttlSeconds: settings.cacheTTLSeconds,
                                  staleWhileRevalidateSeconds: entry.staleWhileRevalidateSeconds, windowSeconds: window)
    }

    private func age(of entry: CachedConfig, at request: LoadRequest) -> Int64? {
        CacheFreshness.age(fetchedAt: entry.fetchedAt, fetchedAtBoot: entry.fetchedAtBoot, now: request.now,
                           boot: request.boot)
    }

    private func snapshot(_ entry: CachedConfig) -> GateSnapshot {
        GateSnapshot(config: entry.config, platform: platform, documentName: name)
    }

    /// The newest good entry: the cache file (re-read when it changed) or
    /// what this process fetched, whichever was fetched later.
    private func cached(_ directory: PrivateDirectory?) -> Memo? {
        let known = memo.withLock { $0 }
        guard let directory else { return known }
        let path = directory.filePath(CachedConfig.fileName(forKey: remote.cacheKey))
        guard let identity = directory.files.identity(of: path) else { return known?.identity == nil ? known : nil }
        if let known, known.identity == identity { return known }
        guard let bytes = try? directory.files.read(path, maxBytes: CachedConfig.maxFileBytes, trust: .private).bytes,
              let entry = CachedConfig.decode(bytes, key: remote.cacheKey),
              settings.trust.map({ $0.stillTrusts(entry.config) }) ?? true else {
            return known?.identity == nil ? known : nil
        }
        if let known, known.entry.fetchedAt > entry.fetchedAt { return known }
        let fresh = Memo(entry: entry, snapshot: snapshot(entry),
                         identity: directory.files.isRecentlyChanged(identity) ? nil : identity)
        memo.withLock { $0 = fresh }
        return fresh
    }
}
