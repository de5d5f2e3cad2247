import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Where to update, whatever the version (docs/design.md, "Where to update").
extension GateClient {
    /// Where to update, whatever the version: the config's update URL (when
    /// a config can be had) under the client's store options and URL policy.
    package func storeResolution(log: CallLog? = nil) -> StoreResolution {
        let environment = system.environment
        let settings = state.withLock { $0.settings }
        let (options, source) = (settings.options, settings.source)
        let deadline = Deadline(afterMilliseconds: options.timeoutMs)
        let request = LoadRequest(appVersion: nil, localeOption: options.locale, environment: environment,
                                  now: system.wallClock(), files: system.files,
                                  bootClock: system.bootClock, deadline: deadline, log: log)
        let snapshot = source.map { $0.load(request).map(\.snapshot) }
            ?? .failure(settings.noSource)
        if case .failure(let failure) = snapshot {
            log?.add(.warning, "no config for the store URL: \(failure.message)")
        }
        let resolution = storeLocator.resolve(options, try? snapshot.get(), system,
                                              country: StoreLocator.country(options, environment), deadline: deadline, log: log)
        log?.record(storeNote: resolution.note, refused: resolution.refusedSome)
        return resolution
    }
}
