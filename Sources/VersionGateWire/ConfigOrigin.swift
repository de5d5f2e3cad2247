/// Where a check's config came from (the result's `config_origin`); a
/// fetch's answer names it, so it crosses the wire by its raw value.
package enum ConfigOrigin: String, Sendable, CaseIterable {
    case localDocument = "local_document"
    case freshFetch = "fresh_fetch"
    case cacheHit = "cache_hit"
    case cacheAfterError = "cache_after_error"
    case embeddedDefault = "embedded_default"
    /// Older than its TTL, within the stale-while-revalidate window: a
    /// refresh was started behind the check.
    case staleCache = "stale_cache"
    /// A fresh cache that Remote Config's realtime stream had fetched
    /// (docs/design.md, "Watching a source").
    case realtime
}
