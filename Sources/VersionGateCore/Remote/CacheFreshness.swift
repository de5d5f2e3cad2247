/// What a cached remote config's age allows (docs/design.md, "Sources and the cache"): answering without a
/// fetch while fresh (the server's max-age, else the TTL), standing in for
/// a failed fetch while no older than max-stale.
package enum CacheFreshness {
    /// How long ago the entry was fetched: by the wall clock, and never less
    /// than the boot clock says when both are of this boot, so a wall clock
    /// moved back cannot make an old cache young. nil when the entry claims
    /// to come from the future (a clock moved back, or a bad file): such an
    /// entry is never fresh, never a fallback.
    package static func age(fetchedAt: Int64, fetchedAtBoot then: BootInstant?, now: Int64, boot: BootInstant?)
        -> Int64? {
        let wall = now &- fetchedAt
        guard wall >= 0 else { return nil }
        if let then, let boot, then.bootID == boot.bootID {
            let elapsed = boot.seconds &- then.seconds
            guard elapsed >= 0 else { return nil }
            return max(wall, elapsed)
        }
        return wall
    }

    /// `maxAgeSeconds`: the server's (Cache-Control, capped), which wins over the TTL.
    package static func isFresh(age: Int64?, maxAgeSeconds: Int?, ttlSeconds: Int64) -> Bool {
        guard let age else { return false }
        return age < (maxAgeSeconds.map(Int64.init) ?? ttlSeconds)
    }

    /// `maxStaleSeconds` 0: a failed fetch never falls back to the cache.
    package static func isFallback(age: Int64?, maxStaleSeconds: Int64) -> Bool {
        guard let age, maxStaleSeconds > 0 else { return false }
        return age <= maxStaleSeconds
    }
}
