import VersionGateCore
import VersionGateWire
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
        /// Where fetches run: the helper process (every host), or here (the helper itself).
        package var network: NetworkPlace
        /// The local gate document used when no remote config can be had.
        package var defaults: LocalDocumentSource?
        /// Set with `trusted_keys`: a cached config counts only if a key
        /// trusted now signed it (the fetcher verifies new ones).
        package var trust: DocumentTrust?
        /// After the TTL, how long a stale cache answers at once while a
        /// refresh runs behind it; 0 = fetch first (as before the window).
        package var staleWhileRevalidateSeconds: Int64
        package var backgroundRefresh: ClientOptions.BackgroundRefresh
        /// The client's options as `key=value`, for the helper's request.
        package var assignments: [String]
        /// The administrator's policy file that allows no network: then only
        /// the cache decides, whatever its age, else the defaults.
        package var networkForbiddenBy: String?

        package init(_ options: ClientOptions, network: NetworkPlace) {
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
            assignments = options.assignmentList
            networkForbiddenBy = options.networkForbiddenBy
            self.network = network
        }
    }

    package let fetcher: any ConfigFetcher
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

    package init(fetcher: any ConfigFetcher, platform: String, settings: Settings) {
        self.fetcher = fetcher
        self.platform = platform
        self.settings = settings
    }

    package var name: String { fetcher.name }

    package func installationID(state: PrivateDirectory) -> String? { fetcher.installationID(state: state) }

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

    /// One fetch, where the settings say: in the helper (every host), or here.
    private func fetch(_ request: LoadRequest, mode: FetchMode) -> Result<FetchedConfig, GateFailure> {
        switch settings.network {
        case .here:
            return fetchHere(request, mode: mode)
        case .helper:
            request.log?.add(.info, "\(name): fetching in the helper (\(request.deadline.remainingMilliseconds) ms left)")
            let answer = HelperProcess.call(.fetch(helperRequest(request, mode: mode)), until: request.deadline) {
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
    }

    /// A fetch made in this process (the helper's own, and tests'): under the
    /// login-burst lock, unless the cache became fresh meanwhile.
    package func fetchHere(_ request: LoadRequest, mode: FetchMode) -> Result<FetchedConfig, GateFailure> {
        var request = request
        if request.boot == nil { request.boot = request.bootClock() }
        let cacheDirectory = PrivateDirectory(base: request.environment.cacheHome, files: request.files)
        let stateDirectory = PrivateDirectory(base: request.environment.stateHome, files: request.files)
        let cached = self.cached(cacheDirectory)
        if let cached, isFresh(cached.entry, at: request) { return .success(cached.fetched(.cacheHit)) }
        // Launchers of this source starting together (a login), and threads
        // of one host, share one request: the first to lock fetches, the
        // others wait for the lock (at most their deadline) and then find the
        // cache it wrote. One still held then is a fetch that outlasts the
        // waiter's deadline too: it fails open rather than send a second
        // request; so does a waiter whose holder's fetch just failed (it
        // tells that failure). A background refresh does not wait: whoever
        // holds the lock is refreshing already.
        let wait = mode == .background ? 0 : request.deadline.remainingMilliseconds
        let lockPath = cacheDirectory.map { $0.filePath(Self.lockName(fetcher.cacheKey)) }
        var attempt = lockPath.map { request.files.lock($0, until: Deadline(afterMilliseconds: 0)) }
        var waited = false
        if case .busy = attempt, wait > 0, let lockPath {
            waited = true
            attempt = request.files.lock(lockPath, until: Deadline(afterMilliseconds: wait))
        }
        if case .busy = attempt {
            return .failure(mode == .background
                ? GateFailure(.timeout, "\(name): another process is fetching it; no second refresh")
                : GateFailure(.timeout, "\(name): the deadline passed while another check was fetching it"))
        }
        let burst = attempt?.lock
        if burst != nil, let written = self.cached(cacheDirectory), isFresh(written.entry, at: request) {
            return .success(written.fetched(.cacheHit))
        }
        if waited, let failed = stateDirectory?.read(Self.failureName(fetcher.cacheKey), maxBytes: 4096)
            .flatMap({ BurstFailure.decode($0, since: request.now - Int64(RefreshLimits.deadlineMilliseconds / 1000) - 1) }) {
            return .failure(GateFailure(failed.kind, failed.message + " (another check's fetch; no second request in one burst)"))
        }
        return withExtendedLifetime(burst) { refresh(cached, request, cacheDirectory, stateDirectory) }
    }

    /// What a flight brought, as this source's memo (another client's
    /// source may have fetched it: the snapshot is built for this one's platform).
    private func remember(_ fetched: FetchedConfig) -> Memo {
        if let known = memo.withLock({ $0 }), known.entry == fetched.entry { return known }
        let fresh = Memo(entry: fetched.entry, snapshot: snapshot(fetched.entry), identity: fetched.identity)
        memo.withLock { $0 = fresh }
        return fresh
    }

    private static func lockName(_ key: String) -> String { "lock-\(fnv1a64Hex(key))" }

    // MARK: The helper's request and answer (docs/design.md, "The fetch helper")

    private func helperRequest(_ request: LoadRequest, mode: FetchMode) -> HelperRequest.ConfigFetch {
        let deadline = mode == .background ? Deadline(afterMilliseconds: RefreshLimits.deadlineMilliseconds) : request.deadline
        return HelperRequest.ConfigFetch(
            mode: mode, options: settings.assignments, appVersion: request.appVersion, now: request.now, boot: request.boot,
            deadlineNanoseconds: deadline.nanoseconds, environment: request.environment.forwarded,
            cacheHome: request.environment.cacheHome, stateHome: request.environment.stateHome,
            log: request.log?.threshold)
    }

    /// The helper's answer as a fetch's outcome.
    private func fetched(from answer: HelperAnswer?) -> Result<FetchedConfig, GateFailure> {
        guard case .fetched(let origin, let note, let bytes, let identity)? = answer,
              let entry = CachedConfig.decode(bytes, key: fetcher.cacheKey) else {
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
        if let backoff = stateDirectory?.read(Self.backoffName(fetcher.cacheKey), maxBytes: 4096).flatMap(Backoff.decode),
           let wait = backoff.remainingSeconds(at: request.now) {
            request.log?.add(.info, "\(name): no refresh started: backing off after throttling for \(wait) s more")
            return true
        }
        let lock = cacheDirectory.filePath(Self.lockName(fetcher.cacheKey))
        switch request.files.lock(lock, until: Deadline(afterMilliseconds: 0)) {
        case .acquired: break   // released at once: the helper takes it
        case .busy:
            request.log?.add(.debug, "\(name): a fetch is already under way (\(lock) is locked)")
            return true
        case .unavailable:
            request.log?.add(.info, "\(name): no refresh can be started (the cache cannot be written); fetching first")
            return false
        }
        var refreshing = request
        refreshing.deadline = Deadline(afterMilliseconds: RefreshLimits.deadlineMilliseconds)
        switch settings.network {
        case .here:
            // No process to leave it to: the refresh runs before the answer.
            refreshing.log = nil
            _ = fetchHere(refreshing, mode: .background)
            return true
        case .helper:
            switch HelperProcess.start(.fetch(helperRequest(refreshing, mode: .background))) {
            case .success(let pid):
                request.log?.add(.info, "\(name): started a background refresh (fetch helper, pid \(pid))")
                return true
            case .failure(let failure):
                request.log?.add(.warning, "\(name): no background refresh could be started (\(failure.message)); "
                                 + "fetching first")
                return false
            }
        }
    }

    private static func backoffName(_ key: String) -> String { "backoff-\(fnv1a64Hex(key)).json" }

    /// The last fetch's failure, for the waiters of its burst.
    private static func failureName(_ key: String) -> String { "failed-\(fnv1a64Hex(key)).json" }

    private func refresh(_ cached: Memo?, _ request: LoadRequest, _ cacheDirectory: PrivateDirectory?,
                         _ stateDirectory: PrivateDirectory?) -> Result<FetchedConfig, GateFailure> {
        let backoffFile = Self.backoffName(fetcher.cacheKey)
        if let backoff = stateDirectory?.read(backoffFile, maxBytes: 4096).flatMap(Backoff.decode),
           let wait = backoff.remainingSeconds(at: request.now) {
            let failure = GateFailure(.backoff, "\(name): backing off after throttling; "
                                      + "no request until \(wait) s from now")
            return .failure(failure)
        }

        let context = FetchContext(
            previousETag: cached?.entry.etag, appVersion: request.appVersion, languageCode: request.languageCode,
            transport: settings.network.transport, limits: settings.limits,
            deadline: request.deadline, state: stateDirectory,
            now: request.now, device: DeviceFacts.read(request.environment))
        request.log?.add(.info, "\(name): fetching (\(request.deadline.remainingMilliseconds) ms left)")
        let outcome: FetchOutcome
        do {
            outcome = try fetcher.fetch(context)
        } catch {
            request.log?.add(.info, "\(name): fetch failed: \(error.failure.message)")
            stateDirectory?.write(Self.failureName(fetcher.cacheKey), BurstFailure(error.failure, at: request.now).encoded())
            if error.throttled, let stateDirectory {
                var random = SystemRandomNumberGenerator()
                let previous = stateDirectory.read(backoffFile, maxBytes: 4096).flatMap(Backoff.decode)
                let next = Backoff.after(previous, now: request.now, retryAfterSeconds: error.retryAfterSeconds,
                                         random: &random)
                stateDirectory.write(backoffFile, next.encoded())
                request.log?.add(.warning, "\(name): the server asked to back off: no request for \(next.until &- request.now) s")
            }
            return .failure(error.failure)
        }
        stateDirectory?.remove(backoffFile)
        stateDirectory?.remove(Self.failureName(fetcher.cacheKey))

        let entry: CachedConfig
        let note: String?
        switch outcome {
        case .updated(let config, let etag, let lifetime, let why):
            request.log?.add(.info, "\(name): fetched a new config"
                             + (config.templateVersion.map { " (template version \($0))" } ?? ""))
            entry = CachedConfig(key: fetcher.cacheKey, fetchedAt: request.now, fetchedAtBoot: request.boot, etag: etag,
                                 maxAgeSeconds: lifetime?.maxAgeSeconds,
                                 staleWhileRevalidateSeconds: lifetime?.staleWhileRevalidateSeconds,
                                 staleIfErrorSeconds: lifetime?.staleIfErrorSeconds, empty: false, config: config)
            note = why
        case .empty(let templateVersion, let why):
            request.log?.add(.info, "\(name): fetched: the remote has no config (no thresholds)")
            entry = CachedConfig(key: fetcher.cacheKey, fetchedAt: request.now, fetchedAtBoot: request.boot, etag: nil, maxAgeSeconds: nil,
                                 empty: true, config: GateConfig(templateVersion: templateVersion))
            note = why
        case .notModified(let lifetime, let why):
            request.log?.add(.info, "\(name): fetched: not modified")
            guard var kept = cached?.entry else {
                return .failure(.config("\(name): the server says nothing changed, but nothing is cached"))
            }
            kept.fetchedAt = request.now
            kept.fetchedAtBoot = request.boot
            kept.maxAgeSeconds = lifetime?.maxAgeSeconds ?? kept.maxAgeSeconds
            kept.staleWhileRevalidateSeconds = lifetime?.staleWhileRevalidateSeconds ?? kept.staleWhileRevalidateSeconds
            kept.staleIfErrorSeconds = lifetime?.staleIfErrorSeconds ?? kept.staleIfErrorSeconds
            entry = kept
            note = why
        }
        if let old = cached?.entry.config.templateVersion, let new = entry.config.templateVersion, new < old {
            return .failure(.config("\(name): template version \(new) is older than the cached \(old); rejected"))
        }
        if settings.trust != nil, let signature = entry.config.signature,
           case .failure(let refused) = SignedTimestamps(stateDirectory).admit(
               signature, for: fetcher.cacheKey, alsoSeen: cached?.entry.config.signature?.timestamp, document: name) {
            return .failure(refused)
        }

        // The identity of the file just written, so the next check does not
        // read back what it wrote. Written by rename, so a later writer gives
        // the file a new inode; one renamed in between our rename and this
        // stat (another process's fetch of the same moment) would pass as ours.
        let name = CachedConfig.fileName(forKey: fetcher.cacheKey)
        let written = cacheDirectory.flatMap { $0.write(name, entry.encoded()) ? $0.filePath(name) : nil }
        return .success(FetchedConfig(entry: entry, identity: written.flatMap(request.files.identity(of:)),
                                      origin: .freshFetch, note: note))
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
        let path = directory.filePath(CachedConfig.fileName(forKey: fetcher.cacheKey))
        guard let identity = directory.files.identity(of: path) else { return known?.identity == nil ? known : nil }
        if let known, known.identity == identity { return known }
        guard let bytes = try? directory.files.read(path, maxBytes: CachedConfig.maxFileBytes, trust: .private).bytes,
              let entry = CachedConfig.decode(bytes, key: fetcher.cacheKey),
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
