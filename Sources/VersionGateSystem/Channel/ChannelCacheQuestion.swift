import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// A channel's question as the revalidating cache asks it (docs/design.md,
/// "One revalidating cache"): one entry per question, store, app and
/// architecture, with its lock; the helper asks and writes the next entry,
/// whether or not the host still listens, so a late answer is the next launch's.
struct ChannelCacheQuestion: CachedQuestion {
    typealias Entry = ChannelEntry

    let question: ChannelQuestion
    let options: ClientOptions
    /// `$XDG_CACHE_HOME`, and the library's directory in it.
    let cacheHome: String?
    let cache: PrivateDirectory?
    let now: Int64
    let key: String

    init(_ question: ChannelQuestion, options: ClientOptions, cacheHome: String?, files: any FileSystem, now: Int64) {
        (self.question, self.options, self.cacheHome, self.now) = (question, options, cacheHome, now)
        cache = PrivateDirectory(base: cacheHome, files: files)
        key = ChannelFiles.key(question, endpoint: Self.endpoint(question, options))
    }

    var name: String { "channel \(question.channel)" }
    /// Its problems are told after the channel's name already.
    var failurePrefix: String { "" }
    var lockPath: String? { cache?.filePath(ChannelFiles.lockName(key)) }
    /// An answer that cannot be kept is not asked for: the next launch would ask again.
    var asksWithoutLock: Bool { false }
    var keepsLateAnswers: Bool { true }

    func current() -> ChannelEntry? { cache.flatMap { ChannelFiles.read($0, key: key) } }

    func age(of entry: ChannelEntry) -> Int64? { entry.age(at: now) }

    func serverLifetimes(of entry: ChannelEntry) -> CacheLifetimes { CacheLifetimes() }

    func backoff(_ entry: ChannelEntry?) -> (seconds: Int64, after: String)? {
        guard let entry, let wait = entry.backoffSeconds(at: now) else { return nil }
        return (wait, entry.problem ?? "a failure")
    }

    func failure(in entry: ChannelEntry) -> String? { entry.backoff == nil ? nil : entry.problem ?? "it failed" }

    /// A body's size limit: far above any real answer, far below a hostile one.
    static let maxBodyBytes = 1 << 20

    /// The exchange, conditional when the entry has validators, bounded by
    /// the helper's own limit rather than the launch's.
    func request(_ entry: ChannelEntry?, mode: FetchMode) -> HelperRequest {
        let entry = entry ?? ChannelEntry(key: key, architecture: ChannelChoice.architecture)
        var limits = TransportLimits()
        limits.timeoutMs = RefreshLimits.deadlineMilliseconds
        limits.maxBodyBytes = Self.maxBodyBytes
        limits.caFile = options.tlsCAFile
        limits.proxy = options.proxy
        let http = question.httpRequest(endpoint: Self.endpoint(question, options), revalidating: entry)
        return .channel(HelperRequest.ChannelAsk(question: question, request: http, limits: limits, previous: entry, now: now,
                                                 cacheHome: cacheHome ?? "", fileName: ChannelFiles.fileName(key)))
    }

    func entry(from answer: HelperAnswer?) -> Result<ChannelEntry, GateFailure> {
        guard case .learned(let bytes)? = answer,
              let learned = ChannelEntry.decode(bytes, key: key, architecture: ChannelChoice.architecture) else {
            return .failure(GateFailure(.internalError, "the helper's answer is malformed"))
        }
        return .success(learned)
    }

    static func endpoint(_ question: ChannelQuestion, _ options: ClientOptions) -> String {
        switch question {
        case .appStore: ASCII.withoutTrailingSlashes(options.itunesEndpoint)
        case .snap: ASCII.withoutTrailingSlashes(options.snapStoreEndpoint)
        case .flathub: ASCII.withoutTrailingSlashes(options.flathubEndpoint)
        case .apt: ""
        }
    }
}

/// The channel cache's files: one entry per key, and its lock.
enum ChannelFiles {
    /// Per channel, store, app and architecture, spelt out.
    static func key(_ question: ChannelQuestion, endpoint: String) -> String {
        ([endpoint] + question.parts + [ChannelChoice.architecture]).joined(separator: " ")
    }

    static func fileName(_ key: String) -> String { "channel-\(fnv1a64Hex(key)).json" }

    static func lockName(_ key: String) -> String { "lock-channel-\(fnv1a64Hex(key))" }

    /// The entry for `key` on this machine; nil when missing, another
    /// user's, corrupt, cut short, or another question's or architecture's.
    static func read(_ cache: PrivateDirectory, key: String) -> ChannelEntry? {
        cache.read(fileName(key), maxBytes: ChannelEntry.maxBytes)
            .flatMap { ChannelEntry.decode($0, key: key, architecture: ChannelChoice.architecture) }
    }

    static func write(_ cache: PrivateDirectory?, _ entry: ChannelEntry) {
        cache?.write(fileName(entry.key), entry.encoded())
    }
}
