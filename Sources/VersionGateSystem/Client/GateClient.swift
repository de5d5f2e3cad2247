import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// A configured gate: options, the source they select, and the check.
/// Thread-safe; options may change between checks.
package final class GateClient: Sendable {
    /// Options and the source they select, replaced whole by `set`: a check
    /// takes one reference instead of copying every option out of the lock.
    final class State: Sendable {
        /// The options as set, and as the administrator's policy leaves them.
        let requested: ClientOptions
        let options: ClientOptions
        /// nil when the options select none: `sourceFailure` says why.
        let source: (any ConfigSource)?
        let sourceFailure: GateFailure?
        let managed: ManagedFacts
        /// This app's part of its "nothing newer" cache keys (NothingNewerRecord.keyApp).
        let nothingNewKeyApp: String
        init(_ requested: ClientOptions, helper: any HelperDoor, policy: AdministratorPolicy) {
            self.requested = requested
            let keys = policy.keys(appID: requested.appID)
            managed = policy.isManaged ? ManagedFacts(keys: keys, files: policy.files) : .none
            var options = requested
            // docs/design.md, "The administrator's policy": its source for every app, and no network.
            if let source = keys.source { try? options.set("source", source.value) }
            options.networkForbiddenBy = keys.network.flatMap { $0.value ? nil : $0.file }
            self.options = options
            nothingNewKeyApp = NothingNewerRecord.keyApp(options)
            switch SourceFactory.make(options, helper: helper) {
            case .success(let source): (self.source, sourceFailure) = (source, nil)
            case .failure(let failure): (source, sourceFailure) = (nil, failure)
            }
        }
        /// Why there is no source (only asked when there is none).
        var noSource: GateFailure { sourceFailure ?? GateFailure(.internalError, "no source selected") }
    }
    /// The settings, and what the results of the current snapshot and
    /// settings share, under one lock: a check takes it once for both.
    /// What NOTHING_NEW told goes with the settings it was read for.
    struct Current {
        var settings: State
        var frame: ResultFrame?
        var nothingNew = NothingNewMemo()
        init(settings: State) { self.settings = settings }
    }
    let state: Mutex<Current>
    /// Root's policy files, read once when the client is made (an
    /// administrator's change counts from the next launch).
    package let policy: PolicyReading
    /// Whether the ignored files were told to a log yet (once per client).
    private let policyTold = Mutex(false)
    let storeLocator = StoreLocator()
    /// Set once this client installed a package's or a snap's update: a
    /// restart then starts the program again, the new version at the same path.
    let updatedPackage = Mutex(false)
    /// The descriptor a watch hands the host (GateClientWatch); nil when not watching.
    let watching = Mutex<Int32?>(nil)
    /// Clock and environment (the C ABI's clients: the real ones).
    package let system: System

    deinit { unwatch() }   // the watch's helper ends with its descriptor

    package init(system: System = .live) {
        var system = system
        // Its XDG homes from here on: resolved once, not at every file.
        system.environment = system.environment.capturingDirectories()
        // As the environment says now, once: not at every check (a stat and getenvs).
        system.sandbox = Sandbox.detect(system.environment, files: system.files)
        self.system = system
        policy = system.policyFiles()
        state = Mutex(Current(settings: State(ClientOptions(), helper: system.helper, policy: policy.policy)))
    }

    /// Sets one option (see ClientOptions) and rebuilds the source. Sources
    /// keep nothing that matters in memory (caches and state are on disk),
    /// so a rebuild loses nothing.
    package func set(_ key: String, _ value: String?) throws(GateFailure) {
        try state.withLock { (current: inout Current) throws(GateFailure) in
            var options = current.settings.requested
            try options.set(key, value)
            if options != current.settings.requested {
                current = Current(settings: State(options, helper: system.helper, policy: policy.policy))
            }
        }
    }

    /// May `current` (a version's raw bytes) run? Never fails: every
    /// problem is a fail-open result that says why.
    /// What happened on the way is added to `log`, if given.
    package func check(current: UnsafeBufferPointer<UInt8>, log: CallLog? = nil) -> GateResult {
        if let log, !policy.warnings.isEmpty, policyTold.withLock({ told in defer { told = true }; return !told }) {
            for warning in policy.warnings { log.add(.warning, warning) }
        }
        let result = decide(current: current, system: system, log: log)
        if let log, let route = result.route {
            log.add(.debug, "the check's last request went " + (route == "direct" ? "direct" : "through \(route)"))
        }
        log?.record(result)
        return result
    }

    /// What an update in place needs of the options: each request's
    /// timeout and CA file, where a GitHub release is asked, the trusted keys.
    var updateSettings: (limits: TransportLimits, gitHubAPI: String, trustedKeys: String?, distroPackage: String?,
                         program: String?, refusal: String?, snapName: String?, snapChannel: String?) {
        let settings = state.withLock { $0.settings }
        let options = settings.options
        var limits = TransportLimits()
        limits.timeoutMs = options.timeoutMs
        limits.caFile = options.tlsCAFile
        limits.proxy = options.proxy
        return (limits, options.gitHubAPIEndpoint, options.assignments["trusted_keys"], options.distroPackage,
                options.program, settings.managed.noUpdateInPlace, options.snapName, options.snapChannel)
    }

    /// What the log callback hears (option `log_level`).
    /// The option as text: as set, else its default; nil when unset with
    /// none (ClientOptions.value).
    package func option(_ key: String) throws(GateFailure) -> String? {
        let options = state.withLock { $0.settings.requested }
        return try options.value(key)
    }

    package var logLevel: LogLevel { state.withLock { $0.settings.options.logLevel } }

    /// `system` is the client's own, passed borrowed (a local copy would
    /// retain its parts at every check).
    private func decide(current: UnsafeBufferPointer<UInt8>, system: System, log: CallLog?) -> GateResult {
        // Borrowed through the reference, not copied: a copy retains every option.
        // (`settings.options.x` reads one option; `let options` would copy them all.)
        let (settings, lastFrame) = state.withLock { ($0.settings, $0.frame) }
        // One deadline for the whole call (the config, then the store
        // lookup), started by the first that may wait: a warm check reads no clock.
        var deadline = LazyDeadline(afterMilliseconds: settings.options.timeoutMs)
        guard let source = settings.source else {
            return GateResult(failOpen: settings.noSource,
                              language: system.environment.language(option: settings.options.locale),
                              current: Version(bytes: current)?.trimmedText, managed: settings.managed)
        }
        // A cached local document answers after one stat, without a request.
        let loaded: LoadedConfig
        if let known = source.current(files: system.files) {
            loaded = known
        } else {
            let request = LoadRequest(appVersion: Version(bytes: current)?.trimmedText,
                                      localeOption: settings.options.locale,
                                      environment: system.environment, now: system.wallClock(), files: system.files,
                                      bootClock: system.bootClock, deadline: deadline.get(), log: log,
                                      trace: deadline.traced())
            switch source.load(request) {
            case .success(let config): loaded = config
            case .failure(let failure):
                return GateResult(failOpen: failure,
                                  language: system.environment.language(option: settings.options.locale),
                                  source: source.name, current: request.appVersion, managed: settings.managed,
                                  route: deadline.route)
            }
        }
        let snapshot = loaded.snapshot
        let frame = frame(snapshot, settings, source, last: lastFrame)

        let decided = Decision(current: current, snapshot: snapshot, now: { system.wallClock() }, rolloutBucket: { latest in
            let state = PrivateDirectory(base: system.environment.stateHome, files: system.files)
            return InstallationID.resolve(source, state: state).map { Rollout.bucket(installationID: $0, latest: latest) }
        }, facts: { SystemFactsReader.current })
        // Moved, never copied, into the result: a copy costs every check a retain per field.
        let decision: Decision
        if decided.asksChannel {
            decision = Self.underPolicy(judged(consume decided, settings, system, &deadline, log), settings.managed)
        } else {
            decision = Self.underPolicy(consume decided, settings.managed)
        }
        // Switches, not ==: these enums' == is a generic call.
        var shouldPrompt = false
        var sessionNote: String?
        var prompt: Prompt?
        switch decision.status {
        case .upToDate: break
        case .mandatory:
            shouldPrompt = true
            prompt = self.prompt(decision, snapshot, frame, settings, system, &deadline)
        case .optional:
            if let quiet = settings.managed.quietOptionalFile {
                sessionNote = "the administrator's policy (\(quiet)) shows no OPTIONAL prompt"
            } else {
                let claim = claim(decision, frame, settings, system)
                (shouldPrompt, sessionNote) = (claim.shouldPrompt, claim.note)
            }
            prompt = self.prompt(decision, snapshot, frame, settings, system, &deadline)
        }
        // An invalid version fails open with its own failure; else the frame's.
        var invalid: GateFailure?
        if case .failOpen = decision.rule { invalid = decision.failure }
        return GateResult(decision: consume decision, shouldPrompt: shouldPrompt, frame: frame,
                          failure: invalid ?? frame.failure,
                          errorMessage: invalid.map { CText($0.message) } ?? frame.errorMessage,
                          locale: prompt?.locale,
                          store: prompt?.store,
                          graceMessage: prompt?.grace, loaded: loaded,
                          note: sessionNote.map { joinNotes(loaded.note, $0) } ?? loaded.note, managed: settings.managed,
                          route: deadline.route)
    }

    /// The last frame while the snapshot and the options are the same
    /// objects (`set` replaces the options, a load may hand a new snapshot).
    private func frame(_ snapshot: GateSnapshot, _ settings: State, _ source: any ConfigSource,
                       last: ResultFrame?) -> ResultFrame {
        if let last, last.isFrame(of: snapshot, settings) { return last }
        return makeFrame(snapshot, settings, source)
    }

    /// A new frame, kept for its settings: out of line, so a warm check's
    /// reuse of the last one stays inlined in it.
    @inline(never)
    private func makeFrame(_ snapshot: GateSnapshot, _ settings: State, _ source: any ConfigSource) -> ResultFrame {
        let options = settings.options
        let made = ResultFrame(snapshot: snapshot, options: options, identity: settings, source: source.name,
                               environment: self.system.environment,
                               installKind: InPlaceUpdate.installKind(sandbox: system.sandbox, program: options.program,
                                                                      snapName: options.snapName,
                                                                      distroPackage: options.distroPackage))
        // Kept only for the settings it was made with: a `set` meanwhile wins.
        state.withLock { if $0.settings === settings { $0.frame = made } }
        return made
    }

    /// The client's URL policy, and the administrator's link, which no
    /// operator's host list limits (docs/design.md, "The administrator's policy").
    package var urlPolicy: StoreURLPolicy {
        let settings = state.withLock { $0.settings }
        return settings.managed.url.map { settings.options.urlPolicy.allowing(https: $0) } ?? settings.options.urlPolicy
    }

    /// The options and the name of the source they select (skip-version).
    package var settings: (options: ClientOptions, sourceName: String?) {
        let settings = state.withLock { $0.settings }
        return (settings.options, settings.source?.name)
    }

}
