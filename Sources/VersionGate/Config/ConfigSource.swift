/// Where a client's thresholds come from: a local document, or a remote
/// protocol behind RemoteSource. Every result comes from one snapshot.
protocol ConfigSource: Sendable {
    /// A human-readable name for messages and the result's "source" field.
    var name: String { get }
    /// The snapshot to decide with, or why there is none (the check fails open).
    func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure>
}

/// What a check knows when it asks for a config.
struct LoadRequest: Sendable {
    /// The version being checked, trimmed; nil when invalid.
    var appVersion: String?
    /// The client's `locale` option, if set.
    var localeOption: String?
    var environment: CheckEnvironment
    /// Wall clock, Unix seconds.
    var now: Int64

    /// BCP 47, e.g. "pt-BR" (computed only by the sources that send it).
    var languageCode: String { BCP47.tag(of: localeOption ?? environment.localeName) }
}

/// A snapshot plus where it came from (the result's provenance).
struct LoadedConfig: Sendable {
    enum Origin: String, Sendable {
        case localDocument = "local_document"
        case freshFetch = "fresh_fetch"
        case cacheHit = "cache_hit"
        case cacheAfterError = "cache_after_error"
        case embeddedDefault = "embedded_default"
    }
    let snapshot: GateSnapshot
    let origin: Origin
    /// Seconds since the config was fetched (remote sources).
    var ageSeconds: Int64? = nil
    /// A fetch that failed although a config was still found (cache, defaults).
    var fetchFailure: GateFailure? = nil
    /// Something worth telling the operator (e.g. fetched without an auth token).
    var note: String? = nil
}
