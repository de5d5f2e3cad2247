import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// One kind of answer a RevalidatingCache keeps (docs/design.md, "One
/// revalidating cache"): a remote config, or a channel's answer (the App
/// Store's also gives its link's trackId). It says what is asked and how
/// its entry reads; the cache decides when to ask.
package protocol CachedQuestion {
    associatedtype Entry
    /// Names it in the log.
    var name: String { get }
    /// What its failures' messages start with ("NAME: " by default; a
    /// channel's problem is told after its name already).
    var failurePrefix: String { get }
    /// The login burst's lock, one question at a time per machine user and
    /// question; nil when there is nowhere to keep an answer.
    var lockPath: String? { get }
    /// Whether an answer that cannot be kept is worth asking for: false
    /// when the lock cannot be taken (a cache that cannot be written).
    var asksWithoutLock: Bool { get }
    /// Whether the helper goes on past the deadline to keep a late answer
    /// for the next launch (a channel's), rather than being stopped (a fetch's).
    var keepsLateAnswers: Bool { get }

    /// The entry kept now (its file re-read when it changed); nil when none.
    func current() -> Entry?
    /// Its age; nil when unknown or from the future (never fresh, never a fallback).
    func age(of entry: Entry) -> Int64?
    /// What the server said of its lifetimes (nil: the options decide).
    func serverLifetimes(of entry: Entry) -> CacheLifetimes
    /// Seconds left of a backoff, and after what; nil when a request may go.
    func backoff(_ entry: Entry?) -> (seconds: Int64, after: String)?
    /// The failure an entry the helper brought records (a channel's keeps
    /// its last answer through one); nil when it is an answer.
    func failure(in entry: Entry) -> String?
    /// After waiting for another check's question: the failure it met, if
    /// it told one (no second request in one burst).
    func burstFailure() -> GateFailure?
    /// The helper's request for `entry` (nil: none known): for a check
    /// that waits, a refresh someone waits for, or nobody (`background`).
    func request(_ entry: Entry?, mode: FetchMode) -> HelperRequest
    /// The helper's answer as the next entry, or the failure it tells.
    func entry(from answer: HelperAnswer?) -> Result<Entry, GateFailure>
}

/// A server's say on an entry's lifetimes: its max-age, stale-while-
/// revalidate and stale-if-error (seconds); nil where it said nothing.
package struct CacheLifetimes: Sendable {
    package var maxAge: Int?
    package var staleWhileRevalidate: Int?
    package var staleIfError: Int?

    package init(maxAge: Int? = nil, staleWhileRevalidate: Int? = nil, staleIfError: Int? = nil) {
        (self.maxAge, self.staleWhileRevalidate, self.staleIfError) = (maxAge, staleWhileRevalidate, staleIfError)
    }
}

extension CachedQuestion {
    package var failurePrefix: String { name + ": " }
    package var asksWithoutLock: Bool { true }
    package var keepsLateAnswers: Bool { false }
    package func failure(in entry: Entry) -> String? { nil }
    package func burstFailure() -> GateFailure? { nil }
}
