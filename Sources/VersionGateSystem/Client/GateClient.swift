import VersionGateCore
import Synchronization

/// A configured gate: options, the source they select, and the check.
/// Thread-safe; options may change between checks.
package final class GateClient: Sendable {
    private struct State {
        package var options = ClientOptions()
        package var source: Result<any ConfigSource, GateFailure> = SourceFactory.make(ClientOptions())
    }
    private let state = Mutex(State())
    private let storeLocator = StoreLocator()
    /// Clock and environment (the C ABI's clients: the real ones).
    package let system: System

    package init(system: System = .live) {
        self.system = system
    }

    /// Sets one option (see ClientOptions) and rebuilds the source. Sources
    /// keep nothing that matters in memory (caches and state are on disk),
    /// so a rebuild loses nothing.
    package func set(_ key: String, _ value: String?) throws(GateFailure) {
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
    package func check(current: UnsafeBufferPointer<UInt8>) -> GateResult {
        check(current: current, system: system)
    }

    /// The same on another clock and environment than the client's own.
    package func check(current: UnsafeBufferPointer<UInt8>, system: System) -> GateResult {
        let environment = system.environment
        let (options, source) = state.withLock { ($0.options, $0.source) }
        let sourceName = (try? source.get())?.name

        let request = LoadRequest(appVersion: Version(bytes: current)?.trimmedText, localeOption: options.locale,
                                  environment: environment, now: system.wallClock())
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
            shouldPrompt = promptMemory(options.sessionScope, environment).claim(key)
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
    package func storeResolution() -> StoreResolution {
        let environment = system.environment
        let (options, source) = state.withLock { ($0.options, $0.source) }
        let request = LoadRequest(appVersion: nil, localeOption: options.locale, environment: environment,
                                  now: system.wallClock())
        let snapshot = (try? source.get())?.load(request).map(\.snapshot)
        return storeLocator.resolve(options, try? snapshot?.get(), environment)
    }

    private func promptMemory(_ scope: ClientOptions.SessionScope, _ environment: CheckEnvironment) -> any PromptMemory {
        if scope == .login, let login = LoginSession(runtimeDirectory: environment.runtimeDirectory) {
            return login
        }
        return ProcessSession.shared
    }
}
