import VersionGateCore
import VersionGateWire
import VersionGatePlatform

extension GateClient {
    /// Brings the cache of the client's remote source up to date unless it
    /// is fresh (docs/design.md, "The background refresh"): what
    /// `versiongate refresh` runs, with the options the checking client had.
    /// Its own deadline (RefreshLimits), not `timeout_ms`: no launcher waits
    /// on it. `current` is the version the launcher checked (Firebase sends
    /// it: conditions may depend on it), nil when unknown. nil when the cache
    /// is current, else why it could not be made so.
    package func refresh(current: UnsafeBufferPointer<UInt8>? = nil, log: CallLog? = nil) -> GateFailure? {
        let options = settings.options
        let source: any ConfigSource
        switch SourceFactory.make(options, helper: system.helper) {
        case .success(let made): source = made
        case .failure(let failure): return failure
        }
        guard let remote = source as? RemoteSource else {
            return .invalidArgument("\(source.name): a local document has no cache to refresh")
        }
        let request = LoadRequest(appVersion: current.flatMap { Version(bytes: $0)?.trimmedText }, localeOption: options.locale, environment: system.environment,
                                  now: system.wallClock(), files: system.files, bootClock: system.bootClock,
                                  deadline: Deadline(afterMilliseconds: RefreshLimits.deadlineMilliseconds), log: log)
        switch remote.revalidate(request) {
        case .success: return nil
        case .failure(let failure): return failure
        }
    }
}
