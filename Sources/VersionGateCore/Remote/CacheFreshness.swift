/// What a cached remote config's age allows (docs/design.md, "Sources and the cache"): answering without a
/// fetch while fresh (the server's max-age, else the TTL), standing in for
/// a failed fetch while no older than max-stale, and answering at once
/// while a refresh runs in the background within the stale-while-revalidate
/// window after that.
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

    /// What a cached entry's age calls for at a check.
    package enum Use: Sendable, Equatable {
        /// Answer from the cache; no request.
        case fresh
        /// Answer from the cache at once and refresh it in the background.
        case staleWhileRevalidate
        /// Fetch before deciding (the cache may still stand in if that fails).
        case fetch
    }

    /// Fresh while younger than max-age (else the TTL); then, for
    /// `windowSeconds` more, stale but usable while a refresh runs; then a
    /// fetch. The window is the server's stale-while-revalidate when it sent
    /// one, else the option; an option of 0 turns the window off whatever
    /// the server says (the launcher asked to wait for the newest document).
    /// An age from the future (nil) is neither fresh nor usable stale.
    package static func use(age: Int64?, maxAgeSeconds: Int?, ttlSeconds: Int64, staleWhileRevalidateSeconds server: Int?,
                            windowSeconds option: Int64) -> Use {
        guard let age else { return .fetch }
        let freshFor = maxAgeSeconds.map(Int64.init) ?? ttlSeconds
        if age < freshFor { return .fresh }
        guard option > 0 else { return .fetch }
        let window = server.map(Int64.init) ?? option
        return age < freshFor &+ window ? .staleWhileRevalidate : .fetch
    }

    /// How old the cache may be to stand in for a failed fetch: the server's
    /// stale-if-error when it sent one, else `max_stale_s`; `max_stale_s` 0
    /// means never, whatever the server says.
    package static func fallbackLimit(maxStaleSeconds: Int64, staleIfErrorSeconds server: Int?) -> Int64 {
        guard maxStaleSeconds > 0 else { return 0 }
        return server.map(Int64.init) ?? maxStaleSeconds
    }
}
