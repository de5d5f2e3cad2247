import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A configured gate: options, the source they select, and the check.
/// Thread-safe; options may change between checks.
final class GateClient: Sendable {
    private struct State {
        var options = ClientOptions()
        var source: Result<any ConfigSource, GateFailure> = SourceFactory.make(ClientOptions())
    }
    private let state = Mutex(State())
    private let storeLocator = StoreLocator()

    /// Sets one option (see ClientOptions) and rebuilds the source. Sources
    /// keep nothing that matters in memory (caches and state are on disk),
    /// so a rebuild loses nothing.
    func set(_ key: String, _ value: String?) throws(GateFailure) {
        try state.withLock { (state: inout State) throws(GateFailure) in
            var options = state.options
            try options.set(key, value)
            if options != state.options {
                state.source = SourceFactory.make(options)
                state.options = options
            }
        }
    }

    /// May `current` (a version's raw bytes) run? Never fails: every
    /// problem is a fail-open result that says why.
    func check(current: UnsafeBufferPointer<UInt8>, environment: CheckEnvironment) -> GateResult {
        let (options, source) = state.withLock { ($0.options, $0.source) }
        let sourceName = (try? source.get())?.name

        let request = LoadRequest(appVersion: Version(bytes: current)?.trimmedText, localeOption: options.locale,
                                  environment: environment, now: options.fixedTime ?? Self.wallClock())
        let loaded: LoadedConfig
        switch source.flatMap({ $0.load(request) }) {
        case .success(let config): loaded = config
        case .failure(let failure):
            return GateResult(failOpen: failure, language: environment.language(option: options.locale),
                              source: sourceName)
        }

        let snapshot = loaded.snapshot
        let verdict = Verdict(current: current, snapshot: snapshot)
        var shouldPrompt = verdict.status == .mandatory
        if verdict.status == .optional {
            let key = [sourceName ?? "", options.platform, verdict.currentText ?? "", snapshot.latest?.string ?? ""]
                .joined(separator: "\u{0}")
            shouldPrompt = sessionStore(options.sessionScope, environment).claim(key)
        }
        let urlKey = GateConfig.updateURLKey(platform: options.platform)
        let urlProblem = snapshot.updateURLRefusal(options.urlPolicy).map { "\(urlKey) refused: \($0)" }
        let store = verdict.status == .upToDate ? nil : storeLocator.resolve(options, snapshot, environment)
        return GateResult(verdict: verdict,
                          failure: verdict.failure ?? urlProblem.map { .config("\(sourceName ?? ""): \($0)") },
                          snapshot: snapshot, shouldPrompt: shouldPrompt, locale: (options.locale, environment),
                          source: sourceName ?? "", loaded: loaded, store: store)
    }

    /// Where to update, whatever the version: the config's update URL (when
    /// a config can be had) under the client's store options and URL policy.
    func storeResolution(environment: CheckEnvironment) -> StoreResolution {
        let (options, source) = state.withLock { ($0.options, $0.source) }
        let request = LoadRequest(appVersion: nil, localeOption: options.locale, environment: environment,
                                  now: options.fixedTime ?? Self.wallClock())
        let snapshot = (try? source.get())?.load(request).map(\.snapshot)
        return storeLocator.resolve(options, try? snapshot?.get(), environment)
    }

    private func sessionStore(_ scope: ClientOptions.SessionScope, _ environment: CheckEnvironment) -> any SessionStore {
        if scope == .login, let login = LoginSession(runtimeDirectory: environment.runtimeDirectory) {
            return login
        }
        return ProcessSession.shared
    }

    private static func wallClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
