import VersionGateCore
import VersionGateWire

/// What a fetch brought: the entry to decide with and to cache.
package struct FetchedConfig: Sendable {
    package let entry: CachedConfig
    /// The cache file the entry was written to (see RemoteSource's Memo),
    /// by this process or by the helper; nil when unknown or not written.
    package let identity: FileIdentity?
    /// freshFetch, or cacheHit when the cache had it after all.
    package let origin: LoadedConfig.Origin
    package let note: String?

    package init(entry: CachedConfig, identity: FileIdentity?, origin: LoadedConfig.Origin, note: String?) {
        (self.entry, self.identity, self.origin, self.note) = (entry, identity, origin, note)
    }
}

/// The background refresh's limits.
package enum RefreshLimits {
    /// A refresh's own deadline, every request included: it keeps no
    /// launcher waiting, so it may wait longer than `timeout_ms`.
    package static let deadlineMilliseconds = 30_000
}
