import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// A remote config behind the revalidating cache (docs/design.md, "Sources
/// and the cache", "One revalidating cache"): fresh answers without
/// network; stale within the window answers while the helper refreshes it
/// behind; otherwise one fetch in the helper (docs/design.md, "The fetch
/// helper"). When that fails: the cache if younger than `maxStale` (or the
/// server's stale-if-error), else the embedded default, else no config
/// (UP_TO_DATE). This type says what is fetched and what it decides with;
/// the cache says when.
package final class RemoteSource: ConfigSource {
    /// What the client's options say (their defaults are the option
    /// table's), and where fetches run.
    package struct Settings: Sendable {
        package var rules: CacheRules
        package var limits = TransportLimits()
        /// Where fetches are served: the helper program (every host), or a test's door.
        package var helper: any HelperDoor
        /// The local gate document used when no remote config can be had.
        package var defaults: LocalDocumentSource?
        /// Set with `trusted_keys`: a cached config counts only if a key
        /// trusted now signed it (the fetcher verifies new ones).
        package var trust: DocumentTrust?

        package init(_ options: ClientOptions, helper: any HelperDoor) {
            rules = CacheRules(options)
            limits.timeoutMs = options.timeoutMs
            limits.caFile = options.tlsCAFile
            limits.proxy = options.proxy
            let trust = DocumentTrust(options)
            self.trust = trust
            defaults = options.defaultsPath.map { LocalDocumentSource(path: $0, platform: options.platform, trust: trust) }
            self.helper = helper
        }
    }

    /// What is fetched: the helper is told exactly this.
    package let remote: RemoteConfig
    package let platform: String
    package let settings: Settings
    private let memo = Mutex<Memo?>(nil)

    /// The newest good entry this process knows, with its snapshot built.
    struct Memo {
        let entry: CachedConfig
        let snapshot: GateSnapshot
        /// Identity of the cache file it was read from or written to; nil if
        /// unknown (not written, or read while it could still change unseen).
        let identity: FileIdentity?
    }

    /// The cache's entry: the memo, and how the last question had it.
    struct Fetched {
        let memo: Memo
        let origin: LoadedConfig.Origin
        var note: String? = nil
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
        switch cache(request).lookup(until: request.deadline) {
        case .fresh(let hit): return .success(loaded(hit.memo, hit.memo.entry.realtime ? .realtime : .cacheHit, at: request))
        case .stale(let hit): return .success(loaded(hit.memo, .staleCache, at: request))
        case .asked(let fetched): return .success(loaded(fetched.memo, fetched.origin, at: request, note: fetched.note))
        case .fallback(let hit, let failure):
            return .success(loaded(hit.memo, .cacheAfterError, at: request, fetchFailure: failure))
        case .failed(let failure): return fallback(failure, request)
        }
    }

    /// Brings the cache up to date unless it is fresh, with the same login-
    /// burst lock, backoff, signature and rollback rules as a check's fetch:
    /// what `vg_client_refresh` and a background refresh run.
    package func revalidate(_ request: LoadRequest) -> Result<LoadedConfig.Origin, GateFailure> {
        var request = request
        if request.boot == nil { request.boot = request.bootClock() }
        switch cache(request).revalidate(until: request.deadline) {
        case .success(let fetched):
            request.log?.add(.info, "\(name): refreshed (\(fetched.origin.rawValue))")
            return .success(fetched.origin)
        case .failure(let failure):
            request.log?.add(.info, "\(name): refresh failed; the cache stays as it was: \(failure.message)")
            return .failure(failure)
        }
    }

    private func cache(_ request: LoadRequest) -> RevalidatingCache<ConfigQuestion> {
        RevalidatingCache(ConfigQuestion(self, request), rules: settings.rules, files: request.files,
                          helper: settings.helper, log: request.log, trace: request.trace)
    }

    /// What a flight brought, as this source's memo (another client's
    /// source may have fetched it: the snapshot is built for this one's platform).
    func remember(_ fetched: FetchedConfig) -> Memo {
        if let known = memo.withLock({ $0 }), known.entry == fetched.entry { return known }
        let fresh = Memo(entry: fetched.entry, snapshot: snapshot(fetched.entry), identity: fetched.identity)
        memo.withLock { $0 = fresh }
        return fresh
    }

    // MARK: The helper's request and answer (docs/design.md, "The fetch helper")

    /// The fetch as the host decided it: what to fetch, what the cache
    /// holds, the backoff to extend, the device's facts and the deadline.
    func helperRequest(_ request: LoadRequest, mode: FetchMode, previous: Memo?, backoff: [UInt8]?)
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
    func fetched(from answer: HelperAnswer?) -> Result<FetchedConfig, GateFailure> {
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

    /// After a failed or skipped fetch with no cache young enough: the
    /// embedded default, else no config at all.
    private func fallback(_ failure: GateFailure, _ request: LoadRequest) -> Result<LoadedConfig, GateFailure> {
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

    func age(of entry: CachedConfig, at request: LoadRequest) -> Int64? {
        CacheFreshness.age(fetchedAt: entry.fetchedAt, fetchedAtBoot: entry.fetchedAtBoot, now: request.now,
                           boot: request.boot)
    }

    private func snapshot(_ entry: CachedConfig) -> GateSnapshot {
        GateSnapshot(config: entry.config, platform: platform, documentName: name)
    }

    /// The newest good entry: the cache file (re-read when it changed) or
    /// what this process fetched, whichever was fetched later.
    func cached(_ directory: PrivateDirectory?) -> Memo? {
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
