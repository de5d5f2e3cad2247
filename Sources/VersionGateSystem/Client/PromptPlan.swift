import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// What a prompting result shows besides the decision (docs/design.md,
/// "Messages", "Where to update"): the texts for the environment's locale,
/// the store URL and the grace period's message; and whether an OPTIONAL
/// prompts now (docs/design.md, "Sessions, skip and remind").
extension GateClient {
    /// What a prompting result shows besides the decision.
    typealias Prompt = (locale: LocaleFrame, store: StoreAnswer, grace: CText?)

    /// The texts for the environment's locale (made when it or the frame
    /// changes), the store URL, and the grace period's message.
    func prompt(_ decision: Decision, _ snapshot: GateSnapshot, _ frame: ResultFrame, _ settings: State,
                        _ system: System, _ deadline: inout LazyDeadline) -> Prompt {
        let locale = frame.locale(system.environment) { localeFrame(snapshot, settings.options, system) }
        // Only the App Store's link may ask the helper: the others are the frame's.
        let store = locale.store ?? StoreAnswer(storeLocator.resolve(
            settings.options, snapshot, system, country: StoreLocator.country(settings.options, region: locale.region),
            deadline: deadline.get(), trace: deadline.traced()))
        let grace = decision.requiredFrom.map { at in
            CText(GraceMessage.text(requiredFrom: at, utcOffset: system.utcOffset(at),
                                    language: locale.texts.language, updateMessage: locale.updateMessage))
        }
        return (locale, store, grace)
    }

    /// A prompt's texts and store URL for the environment's locale now.
    func localeFrame(_ snapshot: GateSnapshot, _ options: ClientOptions, _ system: System) -> LocaleFrame {
        let environment = system.environment
        let inputs = environment.localeInputs()
        let choice = environment.localeChoice(option: options.locale)
        let region = BCP47.region(of: options.locale ?? environment.localeName)
        // The App Store's answer depends on a lookup that may change: resolved at each check.
        // The others ask nothing: their deadline is never waited on.
        let store = options.store == .appstore ? nil : StoreAnswer(storeLocator.resolve(
            options, snapshot, system, country: StoreLocator.country(options, region: region),
            deadline: Deadline(afterMilliseconds: options.timeoutMs)))
        return LocaleFrame(inputs: inputs, texts: CatalogTexts.forLanguage(choice.tag),
                           updateMessage: snapshot.updateMessage(chain: choice.chain),
                           releaseNotes: snapshot.releaseNotes(chain: choice.chain), region: region, store: store)
    }

    /// Whether an OPTIONAL prompts now: skip, remind, then the session.
    func claim(_ decision: Decision, _ frame: ResultFrame, _ settings: State, _ system: System) -> PromptClaim {
        // No local closures: one stored in a constant escapes, and its context (the System) is copied to the heap.
        let record = !settings.options.dryRun
        let state = frame.promptState { Self.promptState(frame, settings, system) }
        guard let state else { return Self.sessionClaim(decision, frame, settings, system, record: record) }
        return state.claim(latest: frame.snapshot?.latest?.string, now: system.wallClock(),
                           remindAfter: settings.options.remindAfterSeconds, record: record) {
            Self.sessionClaim(decision, frame, settings, system, record: record)
        }
    }

    static func promptState(_ frame: ResultFrame, _ settings: State, _ system: System) -> PromptState? {
        PromptState(source: frame.source ?? "", platform: settings.options.platform,
                    environment: system.environment, files: system.files)
    }

    /// The session's say: prompt once per session and key.
    static func sessionClaim(_ decision: Decision, _ frame: ResultFrame, _ settings: State, _ system: System,
                                     record: Bool) -> PromptClaim {
        promptMemory(settings.options.sessionScope, system)
            .claim(frame.sessionKey(current: decision.currentText ?? ""), record: record)
    }

    static func promptMemory(_ scope: ClientOptions.SessionScope, _ system: System) -> any PromptMemory {
        if scope == .login, let login = LoginSession(runtimeDirectory: system.environment.runtimeDirectory, files: system.files) {
            return login
        }
        return ProcessSession.shared
    }
}
