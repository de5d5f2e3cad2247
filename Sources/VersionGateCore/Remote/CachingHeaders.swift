/// The response headers that steer caching and backoff.
package enum CachingHeaders {
    package static let maxAgeCapSeconds = 86_400

    /// `Cache-Control: max-age=N` capped at 24 h; no-cache / no-store → 0;
    /// nil when the header says nothing usable.
    package static func maxAgeSeconds(_ cacheControl: String?) -> Int? {
        guard let cacheControl else { return nil }
        var result: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { ASCII.trimmingBlanks($0).lowercased() }
            switch parts.first {
            case "no-cache", "no-store": return 0
            case "max-age":
                guard parts.count == 2, let seconds = Int64(decimal: parts[1]) else { continue }
                result = Int(min(seconds, Int64(maxAgeCapSeconds)))
            default: continue
            }
        }
        return result
    }

    /// What `Cache-Control` says of a document's lifetime (RFC 9111's
    /// max-age, RFC 5861's stale-while-revalidate and stale-if-error), each
    /// capped at 24 h like max-age; nil when it says nothing usable. A
    /// no-cache or no-store makes max-age 0 and the stale-while-revalidate
    /// window 0 (every check asks first); the cache still stands in for a
    /// failed fetch, as `max_stale_s` says.
    package static func lifetime(_ cacheControl: String?) -> CacheLifetime? {
        guard let cacheControl else { return nil }
        var lifetime = CacheLifetime()
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { ASCII.trimmingBlanks($0).lowercased() }
            let seconds = parts.count == 2 ? Int64(decimal: parts[1]).map { Int(min($0, Int64(maxAgeCapSeconds))) } : nil
            switch parts.first {
            case "no-cache", "no-store": return CacheLifetime(maxAgeSeconds: 0, staleWhileRevalidateSeconds: 0)
            case "max-age": lifetime.maxAgeSeconds = seconds ?? lifetime.maxAgeSeconds
            case "stale-while-revalidate": lifetime.staleWhileRevalidateSeconds = seconds ?? lifetime.staleWhileRevalidateSeconds
            case "stale-if-error": lifetime.staleIfErrorSeconds = seconds ?? lifetime.staleIfErrorSeconds
            default: continue
            }
        }
        return lifetime == CacheLifetime() ? nil : lifetime
    }

    /// `Retry-After: N` (delta-seconds) when the response came over https;
    /// plain http (loopback tests) could be anyone, so it is not honoured.
    package static func retryAfterSeconds(_ value: String?, url: String) -> Int? {
        guard url.lowercased().hasPrefix("https://"), let value,
              let seconds = Int64(decimal: ASCII.trimmingBlanks(value)) else { return nil }
        return Int(min(seconds, Int64(Backoff.maxRetryAfterSeconds)))
    }

    /// An ETag kept for If-None-Match only if it can be sent back unchanged:
    /// printable ASCII. (Header bytes reach us decoded as UTF-8, so obs-text
    /// could not round-trip; such a server just gets no conditional request.)
    package static func etag(_ value: String?) -> String? {
        guard let value, (1...1024).contains(value.utf8.count),
              value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return value
    }

    /// The statuses after which a server wants fewer requests (docs/design.md, "Sources and the cache").
    package static func isThrottling(_ status: Int) -> Bool {
        [429, 500, 503, 504].contains(status)
    }
}

/// A server's word on how long its document lives (docs/design.md, "Sources and the cache"): every
/// field already capped at 24 h; nil = the header did not say.
package struct CacheLifetime: Sendable, Equatable {
    package var maxAgeSeconds: Int?
    package var staleWhileRevalidateSeconds: Int?
    package var staleIfErrorSeconds: Int?

    package init(maxAgeSeconds: Int? = nil, staleWhileRevalidateSeconds: Int? = nil, staleIfErrorSeconds: Int? = nil) {
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
        self.staleIfErrorSeconds = staleIfErrorSeconds
    }
}
