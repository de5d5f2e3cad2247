import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Asks the user's own channel what it serves this system, before a
/// MANDATORY decision blocks (docs/design.md, "Asking the channel"). Never
/// fails: an answer without a version says why, and the operator's word
/// then stands. The answer is kept by the revalidating cache (apt's lists
/// are read here, with no network); the App Store's exchange also gives
/// the store link's trackId.
package struct ChannelAsker: Sendable {
    package let options: ClientOptions
    package let system: System

    package init(options: ClientOptions, system: System) {
        (self.options, self.system) = (options, system)
    }

    /// What `question`'s channel serves: from the cache (fresh; or stale
    /// within the window, while one helper revalidates it), else asked
    /// within `deadline` by a helper that records a late answer anyway.
    package func ask(_ question: ChannelQuestion, deadline: Deadline, now: Int64, log: CallLog?,
                     trace: RequestTrace? = nil) -> ChannelAnswer {
        if case .apt(let package, let architecture) = question {
            return askApt(question, package: package, architecture: architecture, now: now, log: log)
        }
        switch cache(question, now: now, log: log, trace: trace).lookup(until: deadline) {
        case .fresh(let entry), .stale(let entry), .asked(let entry), .fallback(let entry, _):
            guard let served = entry.served else { return problem(question, entry.problem ?? "no answer is known", log) }
            log?.add(.info, "channel \(question.channel) (\(question.detail)) serves \(served)")
            return ChannelAnswer(channel: question.channel, detail: question.detail, served: served)
        case .failed(let failure):
            return problem(question, failure.message, log)
        }
    }

    /// The App Store's trackId for the store link: the channel's own entry
    /// (one exchange gives the version and the id), asked and revalidated
    /// as the channel is, with its backoff. An id never changes for an app,
    /// so when asking fails any known one serves, whatever its age. nil
    /// with the reason when none is known.
    package func appStoreTrackID(bundleID: String, country: String, deadline: Deadline, log: CallLog?,
                                 trace: RequestTrace? = nil) -> (trackID: Int64?, reason: String?) {
        if let why = AppID.bundleIDRefusal(bundleID) { return (nil, "bundle \(why)") }
        guard let cc = StoreKind.countryCode(country) else {
            return (nil, "country \(OneLine.quoted(country, max: 16)) must be 2 letters")
        }
        let cache = cache(.appStore(bundleID: bundleID, country: cc), now: system.wallClock(), log: log, trace: trace)
        let known = { cache.question.current()?.trackID }
        guard deadline.remainingMilliseconds > 0 else {
            return known().map { ($0, nil) } ?? (nil, "no time left for the iTunes lookup: the deadline passed")
        }
        switch cache.lookup(until: deadline) {
        case .fresh(let entry), .stale(let entry), .asked(let entry), .fallback(let entry, _):
            if let id = entry.trackID ?? known() { return (id, nil) }
            return (nil, "iTunes lookup: " + (entry.problem ?? "no trackId"))
        case .failed(let failure):
            return known().map { ($0, nil) } ?? (nil, "iTunes lookup: " + failure.message)
        }
    }

    private func cache(_ question: ChannelQuestion, now: Int64, log: CallLog?,
                       trace: RequestTrace?) -> RevalidatingCache<ChannelCacheQuestion> {
        RevalidatingCache(ChannelCacheQuestion(question, options: options, cacheHome: system.environment.cacheHome,
                                               files: system.files, now: now),
                          rules: CacheRules(options), files: system.files, helper: system.helper, log: log, trace: trace)
    }

    private func problem(_ question: ChannelQuestion, _ why: String, _ log: CallLog?) -> ChannelAnswer {
        log?.add(.info, "channel \(question.channel) (\(question.detail)) could not be asked: \(why); the minimum stands")
        return ChannelAnswer(channel: question.channel, detail: question.detail, problem: why)
    }

    /// apt's lists: read here, no network; kept for cache_ttl_s.
    private func askApt(_ question: ChannelQuestion, package: String, architecture: String, now: Int64,
                        log: CallLog?) -> ChannelAnswer {
        let cache = PrivateDirectory(base: system.environment.cacheHome, files: system.files)
        let key = ChannelFiles.key(question, endpoint: "")
        if let cache, let known = ChannelFiles.read(cache, key: key), let served = known.served,
           CacheFreshness.isFresh(age: known.age(at: now), maxAgeSeconds: nil, ttlSeconds: options.cacheTTLSeconds) {
            log?.add(.info, "channel apt (\(question.detail)) serves \(served)")
            return ChannelAnswer(channel: question.channel, detail: question.detail, served: served)
        }
        switch ChannelDocuments.aptCandidate(AptLists.versions(of: package, architecture: architecture, files: system.files),
                                             package: package, architecture: architecture) {
        case .failure(let refusal): return problem(question, refusal.reason, log)
        case .success(let version):
            var entry = ChannelEntry(key: key, architecture: ChannelChoice.architecture)
            (entry.served, entry.confirmedAt) = (version, now)
            if options.cacheTTLSeconds > 0 { ChannelFiles.write(cache, entry) }
            log?.add(.info, "channel apt (\(question.detail)) serves \(version)")
            return ChannelAnswer(channel: question.channel, detail: question.detail, served: version)
        }
    }
}
