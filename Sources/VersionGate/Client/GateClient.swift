import Synchronization

/// A configured gate: options, the source they select, and the check.
/// Thread-safe; options may change between checks.
final class GateClient: Sendable {
    private struct State {
        var options = ClientOptions()
        var source: (any ConfigSource)?
    }
    private let state = Mutex(State())

    /// Sets one option (see ClientOptions); the source is rebuilt when an
    /// option it depends on changes.
    func set(_ key: String, _ value: String?) throws(GateFailure) {
        try state.withLock { (state: inout State) throws(GateFailure) in
            var options = state.options
            try options.set(key, value)
            if options.sourcePath != state.options.sourcePath || options.platform != state.options.platform {
                state.source = options.sourcePath.map { LocalDocumentSource(path: $0, platform: options.platform) }
            }
            state.options = options
        }
    }

    var options: ClientOptions { state.withLock { $0.options } }

    /// May `current` (a version's raw bytes) run? Never fails: every
    /// problem is a fail-open result that says why.
    func check(current: UnsafeBufferPointer<UInt8>, environment: CheckEnvironment) -> GateResult {
        let (options, source) = state.withLock { ($0.options, $0.source) }
        let language = LocaleChoice.resolve(option: options.locale, environment: environment.variables)
        let texts = CatalogTexts.forLanguage(language)

        guard let source else {
            return GateResult(failOpen: .config("no source set (vg_client_set \"source\")"), language: language)
        }
        let loaded: LoadedConfig
        switch source.load() {
        case .success(let config): loaded = config
        case .failure(let failure):
            return GateResult(failOpen: failure, language: language, source: source.name)
        }

        let snapshot = loaded.snapshot
        let verdict = Verdict(current: current, snapshot: snapshot)
        var shouldPrompt = verdict.status == .mandatory
        if verdict.status == .optional {
            let key = [source.name, options.platform, verdict.currentText ?? "", snapshot.latest?.string ?? ""]
                .joined(separator: "\u{0}")
            shouldPrompt = sessionStore(options.sessionScope, environment).claim(key)
        }
        return GateResult(verdict: verdict, snapshot: snapshot, texts: texts, shouldPrompt: shouldPrompt,
                          language: language, source: source.name, origin: loaded.origin)
    }

    private func sessionStore(_ scope: ClientOptions.SessionScope, _ environment: CheckEnvironment) -> any SessionStore {
        if scope == .login, let login = LoginSession(runtimeDirectory: environment.runtimeDirectory) {
            return login
        }
        return ProcessSession.shared
    }
}
