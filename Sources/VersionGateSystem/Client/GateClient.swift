import VersionGateCore
import Synchronization

/// A configured gate: options, the source they select, and the check.
/// Thread-safe; options may change between checks.
package final class GateClient: Sendable {
    /// Options and the source they select, replaced whole by `set`: a check
    /// takes one reference instead of copying every option out of the lock.
    private final class State: Sendable {
        let options: ClientOptions
        let source: Result<any ConfigSource, GateFailure>
        init(_ options: ClientOptions) {
            self.options = options
            source = SourceFactory.make(options)
        }
    }
    private let state = Mutex(State(ClientOptions()))
    private let storeLocator = StoreLocator()
    private let localeMemo = LocaleMemo()
    /// Clock and environment (the C ABI's clients: the real ones).
    package let system: System

    package init(system: System = .live) {
        var system = system
        // Its XDG homes from here on: resolved once, not at every file.
        system.environment = system.environment.capturingDirectories()
        self.system = system
    }

    /// Sets one option (see ClientOptions) and rebuilds the source. Sources
    /// keep nothing that matters in memory (caches and state are on disk),
    /// so a rebuild loses nothing.
    package func set(_ key: String, _ value: String?) throws(GateFailure) {
        try state.withLock { (state: inout State) throws(GateFailure) in
            var options = state.options
            try options.set(key, value)
            if options != state.options { state = State(options) }
        }
    }

    /// May `current` (a version's raw bytes) run? Never fails: every
    /// problem is a fail-open result that says why.
    /// What happened on the way is added to `log`, if given.
    package func check(current: UnsafeBufferPointer<UInt8>, log: CallLog? = nil) -> GateResult {
        check(current: current, system: system, log: log)
    }

    /// What the log callback hears (option `log_level`).
    package var logLevel: LogLevel { state.withLock { $0.options.logLevel } }

    /// The same on another clock and environment than the client's own.
    package func check(current: UnsafeBufferPointer<UInt8>, system: System, log: CallLog? = nil) -> GateResult {
        let result = decide(current: current, system: system, log: log)
        log?.record(result)
        return result
    }

    private func decide(current: UnsafeBufferPointer<UInt8>, system: System, log: CallLog?) -> GateResult {
        let environment = system.environment
        // Borrowed through the reference, not copied: a copy retains every option.
        let settings = state.withLock { $0 }
        // One deadline for the whole call: the config, then the store lookup.
        let deadline = Deadline(afterMilliseconds: settings.options.timeoutMs)
        let source = settings.source
        let sourceName = (try? source.get())?.name

        let request = LoadRequest(appVersion: Version(bytes: current)?.trimmedText, localeOption: settings.options.locale,
                                  environment: environment, now: system.wallClock(), files: system.files,
                                  bootClock: system.bootClock, deadline: deadline, log: log)
        let loaded: LoadedConfig
        switch source.flatMap({ $0.load(request) }) {
        case .success(let config): loaded = config
        case .failure(let failure):
            return GateResult(failOpen: failure, language: environment.language(option: settings.options.locale),
                              source: sourceName, current: request.appVersion)
        }

        let snapshot = loaded.snapshot
        let decision = Decision(current: current, snapshot: snapshot, now: request.now, rolloutBucket: { latest in
            let state = PrivateDirectory(base: environment.stateHome, files: system.files)
            return (try? source.get()).flatMap { InstallationID.resolve($0, state: state) }
                .map { Rollout.bucket(installationID: $0, latest: latest) }
        }, facts: { SystemFactsReader.current })
        var shouldPrompt = decision.status == .mandatory
        var sessionNote: String?
        if decision.status == .optional {
            let key = join([sourceName ?? "", settings.options.platform, decision.currentText ?? "",
                            snapshot.latest?.string ?? ""], separator: "\u{0}")
            let claim = PromptState.claim(settings.options, source: sourceName, latest: snapshot.latest?.string,
                                          system) {
                promptMemory(settings.options.sessionScope, system).claim(key, record: !settings.options.dryRun)
            }
            shouldPrompt = claim.shouldPrompt
            sessionNote = claim.note
        }
        let urlProblem = snapshot.updateURLRefusal(settings.options.urlPolicy).map { why in
            "\(GateConfig.updateURLKey(platform: settings.options.platform)) refused: \(why)"
        }
        var locale: LocaleMemo.Resolved?
        var store: StoreResolution?
        if decision.status != .upToDate {
            let resolved = localeMemo.resolve(option: settings.options.locale, environment: environment)
            locale = resolved
            store = storeLocator.resolve(settings.options, snapshot, environment, files: system.files,
                                         country: StoreLocator.country(settings.options, region: resolved.region),
                                         deadline: deadline)
        }
        let updateMessage = locale.map { snapshot.updateMessage(chain: $0.chain) } ?? snapshot.updateMessage
        let grace = decision.requiredFrom.map { at in
            GraceMessage.text(requiredFrom: at, utcOffset: system.utcOffset(at), language: locale?.texts.language ?? "en",
                              updateMessage: updateMessage)
        }
        return GateResult(decision: decision,
                          failure: decision.failure ?? urlProblem.map { .config("\(sourceName ?? ""): \($0)") },
                          snapshot: snapshot, shouldPrompt: shouldPrompt, locale: (settings.options.locale, environment),
                          texts: locale?.texts, source: sourceName ?? "", loaded: loaded,
                          note: joinNotes([loaded.note, sessionNote]),
                          store: store,
                          storeURL: store?.url.map(storeLocator.cText), graceMessage: grace.map(CText.init),
                          updateMessage: updateMessage)
    }

    /// Where to update, whatever the version: the config's update URL (when
    /// a config can be had) under the client's store options and URL policy.
    package func storeResolution(log: CallLog? = nil) -> StoreResolution {
        let environment = system.environment
        let settings = state.withLock { $0 }
        let (options, source) = (settings.options, settings.source)
        let deadline = Deadline(afterMilliseconds: options.timeoutMs)
        let request = LoadRequest(appVersion: nil, localeOption: options.locale, environment: environment,
                                  now: system.wallClock(), files: system.files,
                                  bootClock: system.bootClock, deadline: deadline, log: log)
        let snapshot = source.flatMap { $0.load(request).map(\.snapshot) }
        if case .failure(let failure) = snapshot {
            log?.add(.warning, "no config for the store URL: \(failure.message)")
        }
        let resolution = storeLocator.resolve(options, try? snapshot.get(), environment, files: system.files,
                                              country: StoreLocator.country(options, environment), deadline: deadline)
        log?.record(storeNote: resolution.note, refused: resolution.refusedSome)
        return resolution
    }

    /// The options and the name of the source they select (skip-version).
    package var settings: (options: ClientOptions, sourceName: String?) {
        let settings = state.withLock { $0 }
        return (settings.options, (try? settings.source.get())?.name)
    }

    private func promptMemory(_ scope: ClientOptions.SessionScope, _ system: System) -> any PromptMemory {
        if scope == .login, let login = LoginSession(runtimeDirectory: system.environment.runtimeDirectory, files: system.files) {
            return login
        }
        return ProcessSession.shared
    }
}
