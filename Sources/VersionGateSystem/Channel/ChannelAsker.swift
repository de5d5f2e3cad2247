import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Asks the user's own channel what it serves this system, before a
/// MANDATORY decision blocks (docs/design.md, "Asking the channel"). Never
/// fails: an answer without a version says why, and the operator's word
/// then stands. The channel's answer is data, cached like a config: this
/// host decides from the cache whether to ask at all; a helper holding the
/// host's lock asks and writes the next entry, whether or not the host
/// still listens.
package struct ChannelAsker: Sendable {
    package typealias Question = ChannelQuestion

    package let options: ClientOptions
    package let environment: CheckEnvironment
    package let files: any FileSystem
    package let sandbox: Sandbox

    package init(options: ClientOptions, environment: CheckEnvironment, files: any FileSystem, sandbox: Sandbox) {
        (self.options, self.environment, self.files, self.sandbox) = (options, environment, files, sandbox)
    }

    /// Whether any channel could be known: options that name one, a snap,
    /// or a Flatpak (its remote's answer at Update). Cheap: read first.
    package static func mayAsk(_ options: ClientOptions, _ sandbox: Sandbox) -> Bool {
        if options.distroPackage != nil || options.program != nil || options.snapName != nil || sandbox.isFlatpakApp {
            return true
        }
        switch options.store {   // a switch: this enum's != is a generic call
        case .url: return sandbox.snapName != nil
        case .flathub, .snap, .appstore: return true
        }
    }

    /// The channel to ask; nil when none is known (then nothing is asked).
    /// `distro_package` first (the operator named the package), then a snap
    /// (inside one, or `store=snap`), then `store=flathub` and `store=appstore`,
    /// then the package that owns `program` at `version` (the same lookup as
    /// Update's: dpkg-query -S, only when a block asks).
    package func question(country: String, version: String? = nil) -> Question? {
        let architecture = Self.architecture
        if let package = options.distroPackage { return .apt(package: package, architecture: architecture) }
        if let name = snapName {
            return .snap(name: name, architecture: environment.value("SNAP_ARCH") ?? architecture)
        }
        switch options.store {
        case .flathub:
            return (options.appID ?? environment.value("FLATPAK_ID")).map { .flathub(appID: $0) }
        case .appstore:
            return options.appID.map { .appStore(bundleID: $0, country: country) }
        case .snap, .url:
            guard let program = options.program, let version,
                  case .success(.package(let name)) = InPlaceUpdate.kind(sandbox: sandbox, distroPackage: nil, program: program,
                                                                         version: version) else { return nil }
            return .apt(package: name, architecture: architecture)
        }
    }

    /// This machine's Debian architecture: an entry is kept per architecture.
    private static var architecture: String { ChannelArchitecture.debian(machine: SystemFactsReader.current.arch ?? "") }

    /// The store's name of this snap: inside one, the sandbox's; outside,
    /// `app_id` with `store=snap`.
    private var snapName: String? {
        sandbox.snapName ?? options.snapName ?? (options.store == .snap ? options.appID : nil)
    }

    /// What `question`'s channel serves: from the cache (fresh; or stale
    /// within the window, while one helper revalidates it), else asked
    /// within `deadline` by a helper that records a late answer anyway.
    package func ask(_ question: Question, deadline: Deadline, now: Int64, log: CallLog?) -> ChannelAnswer {
        if case .apt(let package, let architecture) = question {
            return askApt(question, package: package, architecture: architecture, now: now, log: log)
        }
        let said = Said(question: question, log: log)
        guard let cache = PrivateDirectory(base: environment.cacheHome, files: files) else {
            return said.problem("not asked: there is no cache directory to keep its answer in")
        }
        let key = cacheKey(question)
        let entry = read(cache, key: key) ?? ChannelEntry(key: key, architecture: Self.architecture)
        if let file = options.networkForbiddenBy {
            // docs/design.md, "The administrator's policy": what is cached decides, whatever its age.
            return entry.served == nil ? said.problem("not asked: the administrator's policy (\(file)) allows no network")
                : said.answer(entry, self, cache)
        }
        switch use(of: entry, at: now) {
        case .fresh:
            log?.add(.debug, "channel \(question.channel): cached answer \(entry.served ?? "") is fresh "
                     + "(\(entry.age(at: now) ?? 0) s old)")
            return said.answer(entry, self, cache)
        case .staleWhileRevalidate:
            log?.add(.debug, "channel \(question.channel): cached answer \(entry.served ?? "") is stale "
                     + "(\(entry.age(at: now) ?? 0) s old); deciding from it while it is revalidated")
            revalidate(question, cache, key: key, now: now, log: log)
            return said.answer(entry, self, cache)
        case .fetch:
            return askNow(question, entry, cache, deadline: deadline, now: now, said: said)
        }
    }

    /// No answer that may decide: one helper asks (the login burst's others
    /// wait for its entry within their deadline), and this launch listens
    /// until its deadline. A late answer is the next launch's.
    private func askNow(_ question: Question, _ entry: ChannelEntry, _ cache: PrivateDirectory, deadline: Deadline,
                        now: Int64, said: Said) -> ChannelAnswer {
        if let wait = entry.backoffSeconds(at: now) {
            return said.fallback(entry, self, cache, now: now, because: "not asked for \(wait) s more after "
                                 + (entry.problem ?? "a failure"))
        }
        guard deadline.remainingMilliseconds > 0 else {
            return said.fallback(entry, self, cache, now: now, because: "no time left to ask: the deadline passed")
        }
        guard ForkGuard.refusal == nil else {
            return said.fallback(entry, self, cache, now: now, because: "not asked from a fork() child")
        }
        let lock: FileLock
        switch files.lock(cache.filePath(Self.lockName(entry.key)), until: deadline) {
        case .acquired(let held): lock = held
        case .busy:
            return said.fallback(read(cache, key: entry.key) ?? entry, self, cache, now: now,
                                 because: "another launch is asking it (one question per burst); no answer within the deadline")
        case .unavailable:
            return said.fallback(entry, self, cache, now: now, because: "not asked: its answer cannot be kept (the cache cannot be written)")
        }
        // Under the lock: another launch's helper may just have written it.
        let current = read(cache, key: entry.key) ?? entry
        if use(of: current, at: now) != .fetch || current.backoffSeconds(at: now) != nil {
            return current.backoffSeconds(at: now) == nil ? said.answer(current, self, cache)
                : said.fallback(current, self, cache, now: now, because: current.problem ?? "backing off")
        }
        said.log?.add(.info, "channel \(question.channel) (\(question.detail)): asking "
                      + "(\(deadline.remainingMilliseconds) ms left; a later answer is kept for the next launch)")
        switch HelperProcess.ask(.channel(request(question, current, cache, now: now)), until: deadline, handingOn: lock) {
        case .success(.learned(let bytes)?):
            guard let learned = ChannelEntry.decode(bytes, key: entry.key, architecture: entry.architecture) else {
                return said.problem("the helper's answer is malformed")
            }
            return learned.backoff == nil ? said.answer(learned, self, cache)
                : said.fallback(learned, self, cache, now: now, because: learned.problem ?? "it failed")
        case .success(.failed(let failure)?):
            return said.fallback(current, self, cache, now: now, because: failure.message)
        case .success:
            return said.problem("the helper's answer is malformed")
        case .failure(let failure):
            return said.fallback(current, self, cache, now: now, because: failure.message)
        }
    }

    /// Starts one detached helper to revalidate a stale answer, unless one
    /// is at work (it holds the lock) or the store asked us to wait.
    private func revalidate(_ question: Question, _ cache: PrivateDirectory, key: String, now: Int64, log: CallLog?) {
        guard ForkGuard.refusal == nil else { return }
        guard case .acquired(let lock) = files.lock(cache.filePath(Self.lockName(key)), until: Deadline(afterMilliseconds: 0)) else {
            log?.add(.debug, "channel \(question.channel): a question is already under way")
            return
        }
        guard let current = read(cache, key: key), use(of: current, at: now) == .staleWhileRevalidate else { return }
        if let wait = current.backoffSeconds(at: now) {
            log?.add(.info, "channel \(question.channel): not revalidated for \(wait) s more after \(current.problem ?? "a failure")")
            return
        }
        switch HelperProcess.start(.channel(request(question, current, cache, now: now)), handingOn: lock) {
        case .success(let pid): log?.add(.info, "channel \(question.channel): revalidating in the background (helper pid \(pid))")
        case .failure(let failure): log?.add(.warning, "channel \(question.channel): no revalidation started: \(failure.message)")
        }
    }

    /// Fresh within cache_ttl_s; then usable for stale_while_revalidate_s
    /// more while a helper revalidates it (unless background refresh is
    /// off or max_stale_s is 0); then asked first.
    private func use(of entry: ChannelEntry, at now: Int64) -> CacheFreshness.Use {
        let off = options.backgroundRefresh == .off || options.maxStaleSeconds == 0
        return CacheFreshness.use(age: entry.age(at: now), maxAgeSeconds: nil, ttlSeconds: options.cacheTTLSeconds,
                                  staleWhileRevalidateSeconds: nil, windowSeconds: off ? 0 : options.staleWhileRevalidateSeconds)
    }

    /// How the answer is told: the log and the result's channel fields.
    private struct Said {
        let question: Question
        let log: CallLog?

        func answer(_ entry: ChannelEntry, _ asker: ChannelAsker, _ cache: PrivateDirectory) -> ChannelAnswer {
            guard let served = entry.served else { return problem(entry.problem ?? "no answer is known") }
            if case .appStore(let bundleID, let country) = question, let id = entry.trackID {
                AppStoreLookup(endpoint: asker.options.itunesEndpoint, cache: cache).remember(id, bundleID: bundleID,
                                                                                               country: country)
            }
            log?.add(.info, "channel \(question.channel) (\(question.detail)) serves \(served)")
            return ChannelAnswer(channel: question.channel, detail: question.detail, served: served)
        }

        /// The last known answer while max_stale_s allows it; else the problem.
        func fallback(_ entry: ChannelEntry, _ asker: ChannelAsker, _ cache: PrivateDirectory, now: Int64,
                      because why: String) -> ChannelAnswer {
            if CacheFreshness.isFallback(age: entry.age(at: now), maxStaleSeconds: asker.options.maxStaleSeconds) {
                log?.add(.info, "channel \(question.channel): \(why); its last answer stands")
                return answer(entry, asker, cache)
            }
            return problem(why)
        }

        func problem(_ why: String) -> ChannelAnswer {
            log?.add(.info, "channel \(question.channel) (\(question.detail)) could not be asked: \(why); the minimum stands")
            return ChannelAnswer(channel: question.channel, detail: question.detail, problem: why)
        }
    }

    /// A body's size limit: far above any real answer, far below a hostile one.
    package static let maxBodyBytes = 1 << 20

    /// The helper's request: the exchange, conditional when the entry has
    /// validators, bounded by its own limit rather than the launch's.
    private func request(_ question: Question, _ entry: ChannelEntry, _ cache: PrivateDirectory,
                         now: Int64) -> HelperRequest.ChannelAsk {
        var http: HTTPRequest
        switch question {
        case .appStore(let bundleID, let country):
            http = HTTPRequest(url: "\(endpoint(question))/lookup?bundleId=\(PercentEncoding.encoded(bundleID))&country=\(country)")
        case .snap(let name, _):
            http = HTTPRequest(url: "\(endpoint(question))/v2/snaps/info/\(PercentEncoding.encoded(name))?fields=version",
                               headers: [("Snap-Device-Series", "16")])
        case .flathub(let appID):
            http = HTTPRequest(url: "\(endpoint(question))/api/v2/appstream/\(PercentEncoding.encoded(appID))")
        case .apt:
            http = HTTPRequest(url: "")   // never asked over HTTP (askApt)
        }
        if entry.served != nil, let etag = entry.etag { http.headers.append(("If-None-Match", etag)) }
        if entry.served != nil, let modified = entry.lastModified { http.headers.append(("If-Modified-Since", modified)) }
        var limits = TransportLimits()
        limits.timeoutMs = RefreshLimits.deadlineMilliseconds
        limits.maxBodyBytes = Self.maxBodyBytes
        limits.caFile = options.tlsCAFile
        limits.proxy = options.proxy
        return HelperRequest.ChannelAsk(question: question, request: http, limits: limits, previous: entry, now: now,
                                        cacheHome: environment.cacheHome ?? "", fileName: Self.fileName(entry.key))
    }

    private func endpoint(_ question: Question) -> String {
        switch question {
        case .appStore: ASCII.withoutTrailingSlashes(options.itunesEndpoint)
        case .snap: ASCII.withoutTrailingSlashes(options.snapStoreEndpoint)
        case .flathub: ASCII.withoutTrailingSlashes(options.flathubEndpoint)
        case .apt: ""
        }
    }

    /// Per channel, store, app and architecture, spelt out.
    private func cacheKey(_ question: Question) -> String {
        ([endpoint(question)] + question.parts + [Self.architecture]).joined(separator: " ")
    }

    // MARK: apt's lists: read here, no network

    private func askApt(_ question: Question, package: String, architecture: String, now: Int64, log: CallLog?)
        -> ChannelAnswer {
        let said = Said(question: question, log: log)
        let cache = PrivateDirectory(base: environment.cacheHome, files: files)
        let key = cacheKey(question)
        if let cache, let known = read(cache, key: key), use(of: known, at: now) == .fresh {
            return said.answer(known, self, cache)
        }
        switch ChannelDocuments.aptCandidate(AptLists.versions(of: package, architecture: architecture, files: files),
                                             package: package, architecture: architecture) {
        case .failure(let refusal): return said.problem(refusal.reason)
        case .success(let version):
            var entry = ChannelEntry(key: key, architecture: Self.architecture)
            (entry.served, entry.confirmedAt) = (version, now)
            if options.cacheTTLSeconds > 0 { cache?.write(Self.fileName(key), entry.encoded()) }
            log?.add(.info, "channel apt (\(question.detail)) serves \(version)")
            return ChannelAnswer(channel: question.channel, detail: question.detail, served: version)
        }
    }

    // MARK: A Flatpak's own remote, at Update time

    /// What the portal's NOTHING_NEW told about this sandbox's commit: its
    /// remote serves nothing newer than `version` (the version that ran it).
    /// Kept like a channel's answer, for cache_ttl_s (at least an hour: the
    /// launcher starts again at once).
    /// The answer is returned as well: the client that updated decides
    /// from it in memory; the file is for the next launches.
    package func recordNothingNew(commit: String, version: String, now: Int64) -> ChannelAnswer {
        var entry = ChannelEntry(key: Self.flatpakKey(commit), architecture: Self.architecture)
        (entry.served, entry.confirmedAt) = (version, now)
        PrivateDirectory(base: environment.cacheHome, files: files)?.write(Self.fileName(entry.key), entry.encoded())
        return Self.flatpakAnswer(commit: commit, served: version)
    }

    /// The answer an earlier launch's NOTHING_NEW left for the running
    /// commit, if any: it comes before every other channel's (it is this
    /// installation's own remote).
    package func flatpakRemoteAnswer(commit: String, now: Int64) -> ChannelAnswer? {
        guard let cache = PrivateDirectory(base: environment.cacheHome, files: files),
              let entry = read(cache, key: Self.flatpakKey(commit)), let served = entry.served,
              let age = entry.age(at: now), age < max(options.cacheTTLSeconds, 3600) else { return nil }
        return Self.flatpakAnswer(commit: commit, served: served)
    }

    private static func flatpakAnswer(commit: String, served: String) -> ChannelAnswer {
        ChannelAnswer(channel: ChannelAnswer.flatpakRemote,
                      detail: "its remote has nothing newer than commit \(commit.prefix(12))", served: served)
    }

    private static func flatpakKey(_ commit: String) -> String { "flatpak nothing new \(commit)" }

    // MARK: A distribution package's or a snap's channel, at Update time

    /// PackageKit had nothing newer than `version` for `package`, the app's
    /// (`distro_package`, or the owner of its program), or snapd for the
    /// snap `package` in the channel it tracks: kept like the Flatpak
    /// remote's NOTHING_NEW, for this app and version.
    /// Returned as well, as recordNothingNew's is.
    package func recordNothingNewer(_ channel: NothingNewer, package: String, version: String,
                                    now: Int64) -> ChannelAnswer {
        let key = channel.rawValue + Self.nothingNewerKeyApp(options) + version
        var entry = ChannelEntry(key: key, architecture: Self.architecture)
        (entry.served, entry.confirmedAt, entry.problem) = (version, now, package)
        PrivateDirectory(base: environment.cacheHome, files: files)?.write(Self.fileName(entry.key), entry.encoded())
        return channel.answer(package: package, served: version)
    }

    /// The answer an earlier launch's "nothing newer" (PackageKit's, else
    /// snapd's) left for this app at `version`, if any; `keyApp` is
    /// `nothingNewerKeyApp`'s.
    package func nothingNewerAnswer(keyApp: String, version: String, now: Int64) -> ChannelAnswer? {
        guard let cache = PrivateDirectory(base: environment.cacheHome, files: files) else { return nil }
        for channel in NothingNewer.allCases {
            guard let entry = read(cache, key: channel.rawValue + keyApp + version), let served = entry.served,
                  let age = entry.age(at: now), age < max(options.cacheTTLSeconds, 3600) else { continue }
            return channel.answer(package: entry.problem, served: served)
        }
        return nil
    }

    /// Whose "nothing newer" it was, and how the key starts.
    package enum NothingNewer: String, CaseIterable, Sendable {
        case package = "package nothing new"
        case snap = "snap nothing new"

        func answer(package: String?, served: String) -> ChannelAnswer {
            switch self {
            case .package:
                ChannelAnswer(channel: "package", detail: "PackageKit has nothing newer for \(package ?? "its package")",
                              served: served)
            case .snap:
                ChannelAnswer(channel: "snap", detail: "snapd has nothing newer for \(package ?? "the snap") in its channel",
                              served: served)
            }
        }
    }

    /// This app (its source and id), the version to follow: the launch
    /// after Update names no program, so the key does not depend on one.
    package static func nothingNewerKeyApp(_ options: ClientOptions) -> String {
        " \(options.assignments["source"] ?? "") \(options.appID ?? "") "
    }

    // MARK: The cache: one entry per question, and its lock

    private static func fileName(_ key: String) -> String { "channel-\(fnv1a64Hex(key)).json" }

    private static func lockName(_ key: String) -> String { "lock-channel-\(fnv1a64Hex(key))" }

    /// The entry for `key` on this machine; nil when missing, another
    /// user's, corrupt, cut short, or another question's or architecture's.
    private func read(_ cache: PrivateDirectory, key: String) -> ChannelEntry? {
        cache.read(Self.fileName(key), maxBytes: ChannelEntry.maxBytes)
            .flatMap { ChannelEntry.decode($0, key: key, architecture: Self.architecture) }
    }
}
