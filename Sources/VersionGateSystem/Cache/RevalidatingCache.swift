import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// When a cached answer decides, and when it is asked again (docs/design.md,
/// "One revalidating cache"), written once for every kind of answer:
/// fresh answers at once; stale within the stale-while-revalidate window
/// answers at once while one helper revalidates it behind; otherwise one
/// question, under the login burst's lock, made in the helper (none while
/// backing off; the others of a burst wait for its answer within their
/// deadline); when that fails, the last answer while no older than
/// max-stale. The lock is handed on to the helper, which holds it until it
/// has written the next entry.
package struct RevalidatingCache<Question: CachedQuestion> {
    package typealias Entry = Question.Entry

    package let question: Question
    package let rules: CacheRules
    package let files: any FileSystem
    package let helper: any HelperDoor
    package let log: CallLog?
    /// Where the call notes its requests' route; nil when no one reads it.
    package let trace: RequestTrace?

    package init(_ question: Question, rules: CacheRules, files: any FileSystem, helper: any HelperDoor, log: CallLog?,
                 trace: RequestTrace?) {
        (self.question, self.rules, self.files, self.helper, self.log, self.trace) = (question, rules, files, helper, log, trace)
    }

    /// What decides, and how it was had.
    package enum Lookup {
        /// Fresh: no request.
        case fresh(Entry)
        /// Stale within the window: a revalidation runs behind it (or is
        /// under way, or the server asked us to wait).
        case stale(Entry)
        /// Just asked: the helper's answer.
        case asked(Entry)
        /// Asking failed or was not allowed: the last answer stands in.
        case fallback(Entry, GateFailure)
        /// Asking failed and no answer may stand in.
        case failed(GateFailure)
    }

    /// The answer for a check that may wait until `deadline`.
    package func lookup(until deadline: Deadline) -> Lookup {
        let entry = question.current()
        if let file = rules.networkForbiddenBy {
            // docs/design.md, "The administrator's policy": what is cached decides, whatever its age.
            let failure = failure(.network, "not asked: the administrator's policy (\(file)) allows no network")
            guard let entry, question.age(of: entry) != nil else { return .failed(failure) }
            if use(of: entry) == .fresh { return .fresh(entry) }
            log?.add(.info, "\(question.name): deciding from its cache (\(question.age(of: entry) ?? 0) s old): "
                     + failure.message)
            return .fallback(entry, failure)
        }
        guard let entry else { return askNow(nil, until: deadline, mode: .fetchFirst) }
        switch use(of: entry) {
        case .fresh:
            log?.add(.debug, "\(question.name): its cached answer is fresh (\(question.age(of: entry) ?? 0) s old)")
            return .fresh(entry)
        case .staleWhileRevalidate:
            log?.add(.debug, "\(question.name): its cached answer is stale (\(question.age(of: entry) ?? 0) s old); "
                     + "deciding from it while it is revalidated")
            // No revalidation could start (an unwritable cache, no helper): then ask first.
            if startRevalidation(entry) { return .stale(entry) }
            return askNow(entry, until: deadline, mode: .fetchFirst)
        case .fetch:
            return askNow(entry, until: deadline, mode: .fetchFirst)
        }
    }

    /// Brings the cache up to date unless it is fresh, with the same lock,
    /// backoff and fallback rules as a check: `vg_client_refresh`.
    package func revalidate(until deadline: Deadline) -> Result<Entry, GateFailure> {
        if let file = rules.networkForbiddenBy {
            return .failure(failure(.network, "not refreshed: the administrator's policy (\(file)) allows no network"))
        }
        let entry = question.current()
        if let entry, use(of: entry) == .fresh { return .success(entry) }
        switch askNow(entry, until: deadline, mode: .refresh) {
        case .fresh(let entry), .stale(let entry), .asked(let entry): return .success(entry)
        case .fallback(_, let failure), .failed(let failure): return .failure(failure)
        }
    }

    /// One question now: under the burst's lock (waiting for another
    /// check's within `deadline`, then taking its answer), unless the cache
    /// became fresh meanwhile, that check's question failed, or the server
    /// asked us to back off.
    private func askNow(_ entry: Entry?, until deadline: Deadline, mode: FetchMode) -> Lookup {
        if let wait = question.backoff(entry) {
            return settle(entry, failure(.backoff, "not asked for \(wait.seconds) s more after \(wait.after)"))
        }
        if let refusal = ForkGuard.refusal { return settle(entry, refusal) }
        guard deadline.remainingMilliseconds > 0 else {
            return settle(entry, failure(.timeout, "no time left to ask: the deadline passed"))
        }
        var lock: FileLock?
        var waited = false
        if let path = question.lockPath {
            var attempt = files.lock(path, until: Deadline(afterMilliseconds: 0))
            if case .busy = attempt, deadline.remainingMilliseconds > 0 {
                waited = true
                attempt = files.lock(path, until: deadline)
            }
            switch attempt {
            case .acquired(let held): lock = held
            case .busy:
                return settle(question.current() ?? entry, failure(.timeout, "the deadline passed while another check "
                                                                   + "was fetching it (one request per login burst)"))
            case .unavailable:
                guard question.asksWithoutLock else {
                    return settle(entry, failure(.internalError, "not asked: its answer cannot be kept (the cache cannot be written)"))
                }
            }
        } else if !question.asksWithoutLock {
            return .failed(failure(.internalError, "not asked: there is no cache directory to keep its answer in"))
        }
        // Under the lock: another check's helper may just have written it.
        let current = lock == nil ? entry : question.current() ?? entry
        if lock != nil, let current, use(of: current) == .fresh { return .fresh(current) }
        if waited, let failed = question.burstFailure() { return settle(current, failed) }
        if lock != nil, let wait = question.backoff(current) {
            return settle(current, failure(.backoff, "not asked for \(wait.seconds) s more after \(wait.after)"))
        }
        log?.add(.info, "\(question.name): asking in the helper (\(deadline.remainingMilliseconds) ms left)")
        let request = question.request(current, mode: mode)
        let answer = question.keepsLateAnswers
            ? helper.ask(request, until: deadline, handingOn: lock)
            : helper.call(request, until: deadline, handingOn: lock) {
                if case .log(let level, let line) = $0 { log?.add(level, "helper: " + line) }
                return true
            }
        if case .success(let reply) = answer { trace?.note(reply.route) }
        switch answer.map(\.answer) {
        // The helper's own failure says what failed; one of starting or hearing it does not.
        case .failure(let failure): return settle(current, self.failure(failure.kind, failure.message))
        case .success(.failed(let failure)?): return settle(current, failure)
        case .success(let answer):
            switch question.entry(from: answer) {
            case .failure(let failure): return settle(current, failure)
            case .success(let next):
                if let why = question.failure(in: next) { return settle(next, failure(.network, why)) }
                return .asked(next)
            }
        }
    }

    /// Starts one helper to revalidate a stale `entry`, unless one is at
    /// work (it holds the lock), the server asked us to back off, or this is
    /// a fork() child. false when none runs or could start (the check then
    /// asks first); true also when one is under way or we back off (the
    /// stale answer then decides without a request).
    private func startRevalidation(_ entry: Entry) -> Bool {
        guard ForkGuard.refusal == nil, let path = question.lockPath else { return false }
        if let wait = question.backoff(entry) {
            log?.add(.info, "\(question.name): not revalidated for \(wait.seconds) s more after \(wait.after)")
            return true
        }
        let lock: FileLock
        switch files.lock(path, until: Deadline(afterMilliseconds: 0)) {
        case .acquired(let held): lock = held   // handed on: the helper holds it until it exits
        case .busy:
            log?.add(.debug, "\(question.name): a question is already under way (\(path) is locked)")
            return true
        case .unavailable:
            log?.add(.info, "\(question.name): no revalidation can start (the cache cannot be written); asking first")
            return false
        }
        let current = question.current() ?? entry
        if use(of: current) == .fresh { return true }
        switch helper.start(question.request(current, mode: .background), handingOn: lock) {
        case .success(let pid):
            log?.add(.info, "\(question.name): started a background refresh (fetch helper, pid \(pid))")
            return true
        case .failure(let failure):
            log?.add(.warning, "\(question.name): no background refresh could be started (\(failure.message)); "
                     + "asking first")
            return false
        }
    }

    /// After a failed or refused question: `entry` while no older than
    /// max-stale (or the server's stale-if-error), else the failure.
    private func settle(_ entry: Entry?, _ failure: GateFailure) -> Lookup {
        guard let entry else { return .failed(failure) }
        let limit = CacheFreshness.fallbackLimit(maxStaleSeconds: rules.maxStaleSeconds,
                                                 staleIfErrorSeconds: question.serverLifetimes(of: entry).staleIfError)
        guard CacheFreshness.isFallback(age: question.age(of: entry), maxStaleSeconds: limit) else { return .failed(failure) }
        log?.add(.info, "\(question.name): \(failure.message); its last answer stands")
        return .fallback(entry, failure)
    }

    private func use(of entry: Entry) -> CacheFreshness.Use {
        let lifetimes = question.serverLifetimes(of: entry)
        return CacheFreshness.use(age: question.age(of: entry), maxAgeSeconds: lifetimes.maxAge, ttlSeconds: rules.ttlSeconds,
                                  staleWhileRevalidateSeconds: lifetimes.staleWhileRevalidate,
                                  windowSeconds: rules.windowSeconds)
    }

    private func failure(_ kind: GateFailure.Kind, _ text: String) -> GateFailure {
        GateFailure(kind, question.failurePrefix + text)
    }
}

/// What the options say of every cached answer.
package struct CacheRules: Sendable {
    package var ttlSeconds: Int64
    /// After the TTL, how long a stale answer decides while it is
    /// revalidated; 0 when background refresh is off or max_stale_s is 0
    /// ("never decide from a stale cache").
    package var windowSeconds: Int64
    /// 0 = a failed question never falls back to the cache.
    package var maxStaleSeconds: Int64
    /// The administrator's policy file that allows no network: then only
    /// the cache decides, whatever its age.
    package var networkForbiddenBy: String?

    package init(_ options: ClientOptions) {
        ttlSeconds = options.cacheTTLSeconds
        maxStaleSeconds = options.maxStaleSeconds
        let off = options.backgroundRefresh == .off || options.maxStaleSeconds == 0
        windowSeconds = off ? 0 : options.staleWhileRevalidateSeconds
        networkForbiddenBy = options.networkForbiddenBy
    }
}
