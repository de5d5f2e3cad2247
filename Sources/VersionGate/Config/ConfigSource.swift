/// Where a client's thresholds come from. The local document is the first
/// source; the network sources implement the same seam.
protocol ConfigSource: Sendable {
    /// A human-readable name for messages and the result's "source" field.
    var name: String { get }
    /// The current snapshot, or why there is none (the check fails open).
    func load() -> Result<LoadedConfig, GateFailure>
}

/// A snapshot plus where it came from.
struct LoadedConfig: Sendable {
    enum Origin: String, Sendable { case localDocument = "local_document" }
    let snapshot: GateSnapshot
    let origin: Origin
}
