import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// A watcher's fetch (docs/design.md, "Watching a source"): made now, on the
/// helper's own clock, as a refresh makes it; what the cache holds.
extension HelperRequest.ConfigFetch {
    /// One fetch now (`fetchType`: Firebase's mark of a realtime one); the
    /// entry written, with `previous` moved to it; nil when it failed.
    mutating func fetchNow(fetchType: String? = nil) -> CachedConfig? {
        now = Self.wallClock()
        deadlineNanoseconds = Deadline(afterMilliseconds: limits.timeoutMs).nanoseconds
        guard case .fetched(_, _, let bytes, let identity) = ConfigService.fetch(self, fetchType: fetchType,
                                                                               interim: { _ in true }),
              let entry = CachedConfig.decode(bytes, key: remote.cacheKey) else { return nil }
        previous = .init(etag: entry.etag, templateVersion: entry.config.templateVersion,
                         signatureTimestamp: entry.config.signature?.timestamp, identity: identity)
        return entry
    }

    /// The entry the cache file holds now, whoever wrote it.
    var cachedEntry: CachedConfig? {
        guard let cache = PrivateDirectory(base: cacheHome, files: POSIXFiles()),
              let bytes = cache.read(CachedConfig.fileName(forKey: remote.cacheKey), maxBytes: CachedConfig.maxFileBytes)
        else { return nil }
        return CachedConfig.decode(bytes, key: remote.cacheKey)
    }

    static func wallClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
