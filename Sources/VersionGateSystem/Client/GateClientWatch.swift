import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Watching the client's source while the app runs (docs/design.md,
/// "Watching a source"): one helper per client holds the watch and writes
/// to a descriptor the host polls; the host drains it and checks again.
/// Nothing of it runs in the host: no thread, no socket.
extension GateClient {
    /// The descriptor that becomes readable when the decision may have
    /// changed; the same one while watching.
    package func watch() -> Result<Int32, GateFailure> {
        let settings = state.withLock { $0.settings }
        return watching.withLock { (watching: inout Int32?) -> Result<Int32, GateFailure> in
            if let watching { return .success(watching) }
            guard let source = settings.source else { return .failure(settings.noSource) }
            let request: HelperRequest.Watch
            switch watchRequest(source, settings.options) {
            case .failure(let failure): return .failure(failure)
            case .success(let made): request = made
            }
            return system.helper.watch(.watch(request)).map { descriptor in
                watching = descriptor
                return descriptor
            }
        }
    }

    /// Stops watching: the descriptor is closed, and the helper ends when it sees that.
    package func unwatch() {
        watching.withLock { watching in
            if let descriptor = watching { system.helper.endWatch(descriptor) }
            watching = nil
        }
    }

    private func watchRequest(_ source: any ConfigSource, _ options: ClientOptions) -> Result<HelperRequest.Watch, GateFailure> {
        let pid = system.helper.hostID
        if let local = source as? LocalDocumentSource {
            return .success(HelperRequest.Watch(file: local.path, fetch: nil, intervalSeconds: options.watchIntervalSeconds,
                                                realtimeEndpoint: options.firebaseRealtimeEndpoint, hostPID: pid,
                                                lockPath: nil))
        }
        guard let remote = source as? RemoteSource else {
            return .failure(GateFailure(.invalidArgument, "\(source.name) cannot be watched"))
        }
        if let file = options.networkForbiddenBy {
            return .failure(GateFailure(.network, "\(source.name): not watched: the administrator's policy (\(file)) "
                                        + "allows no network"))
        }
        let request = LoadRequest(appVersion: nil, localeOption: options.locale, environment: system.environment,
                                  now: system.wallClock(), files: system.files, bootClock: system.bootClock)
        let cache = PrivateDirectory(base: system.environment.cacheHome, files: system.files)
        let fetch = remote.helperRequest(request, mode: .refresh,
                                         previous: remote.cached(cache), backoff: nil)
        return .success(HelperRequest.Watch(
            file: nil, fetch: fetch, intervalSeconds: options.watchIntervalSeconds,
            realtimeEndpoint: options.firebaseRealtimeEndpoint, hostPID: pid,
            lockPath: cache?.filePath("lock-watch-" + fnv1a64Hex(remote.remote.cacheKey))))
    }
}
