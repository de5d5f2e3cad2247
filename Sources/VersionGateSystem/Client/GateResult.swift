import VersionGateCore
import Synchronization

/// One check's answer, immutable. Every string is a CText shared with the
/// snapshot or catalog it came from, valid for as long as the result lives.
package final class GateResult: Sendable {
    /// The one decision every door tells (docs/design.md, "The decision").
    package let decision: Decision
    package var status: GateStatus { decision.status }
    package var rule: GateRule { decision.rule }
    package let shouldPrompt: Bool
    package let current: String?
    package let title, message, actionLabel, dismissLabel, skipLabel, storeURL: CText?
    /// An https page for when no handler opens `storeURL`'s scheme.
    package let storeWebFallback: String?
    /// Why a store URL was refused or a fallback used.
    package let storeNote: String?
    /// Whether the URL policy refused a candidate store URL.
    package let storeRefusedSome: Bool
    package let minRequired, latest: CText?
    /// Why the result fails open, or a config problem that did not stop the
    /// decision; nil when it came from a good config.
    package let failure: GateFailure?
    package let errorMessage: CText?
    private let languageChoice: LanguageChoice
    private enum LanguageChoice: Sendable {
        case resolved(String)
        case deferred(String?, CheckEnvironment)
    }

    /// The catalog language of the texts (or that they would have).
    package var language: String {
        switch languageChoice {
        case .resolved(let language): return language
        case .deferred(let option, let environment): return environment.language(option: option)
        }
    }
    package let source: String?
    /// Where the config came from; nil when none decided.
    package let origin: LoadedConfig.Origin?
    package let templateVersion: Int64?
    package let configAgeSeconds: Int64?
    /// A fetch that failed although the decision came from a good config
    /// (the cache, or the embedded default); the result error stays VG_OK.
    package let fetchFailure: GateFailure?
    package let note: String?
    /// The JSON form, made on first use by the C ABI (most launchers never ask).
    package let json = Mutex<CText?>(nil)
    /// vg_result_get's answers and the reason, by key, made on first use and
    /// kept for the result's life (the C caller holds the pointers).
    package let texts = Mutex<[String: CText]>([:])

    /// The catalog language is resolved only when a prompt needs texts or
    /// the JSON is asked for: a warm UP_TO_DATE check reads no environment.
    /// `texts` and `storeURL` are given for a prompting verdict, nil for UP_TO_DATE;
    /// `updateMessage` is the operator's message for the user's languages (GateSnapshot).
    package init(decision: Decision, failure: GateFailure?, snapshot: GateSnapshot, shouldPrompt: Bool,
         locale: (option: String?, environment: CheckEnvironment), texts: CatalogTexts?, source: String,
         loaded: LoadedConfig, note: String?, store: StoreResolution?, storeURL: CText?, graceMessage: CText? = nil,
         updateMessage: CText? = nil) {
        self.decision = decision
        self.shouldPrompt = shouldPrompt
        current = decision.currentText
        switch decision.status {
        case .mandatory:
            title = texts?.mandatoryTitle
            message = updateMessage ?? texts?.mandatoryMessage
            actionLabel = texts?.updateLabel
            dismissLabel = nil
            skipLabel = nil
        case .optional:
            title = texts?.optionalTitle
            message = graceMessage ?? updateMessage ?? texts?.optionalMessage
            actionLabel = texts?.updateLabel
            dismissLabel = texts?.laterLabel
            skipLabel = texts?.skipLabel
        case .upToDate:
            title = nil; message = nil; actionLabel = nil; dismissLabel = nil; skipLabel = nil
        }
        self.storeURL = storeURL
        storeWebFallback = store?.webFallback
        storeNote = store?.note
        storeRefusedSome = store?.refusedSome ?? false
        minRequired = snapshot.minRequired
        latest = snapshot.latest
        self.failure = failure
        errorMessage = failure.map { CText($0.message) }
        languageChoice = texts.map { .resolved($0.language) } ?? .deferred(locale.option, locale.environment)
        self.source = source
        origin = loaded.origin
        templateVersion = snapshot.templateVersion
        configAgeSeconds = loaded.ageSeconds
        fetchFailure = loaded.fetchFailure
        self.note = note
    }

    /// UP_TO_DATE because of `failure`: nothing else is known.
    package init(failOpen failure: GateFailure, language: String = "en", source: String? = nil, current: String? = nil) {
        decision = Decision(failOpen: failure, current: current)
        shouldPrompt = false
        self.current = current
        title = nil; message = nil; actionLabel = nil; dismissLabel = nil; skipLabel = nil; storeURL = nil
        storeWebFallback = nil; storeNote = nil; storeRefusedSome = false
        minRequired = nil; latest = nil
        self.failure = failure
        errorMessage = CText(failure.message)
        languageChoice = .resolved(language)
        self.source = source
        origin = nil
        templateVersion = nil
        configAgeSeconds = nil
        fetchFailure = nil
        note = nil
    }

    /// The rollout percent when a staged rollout decided this result.
    package var rolloutPercent: Int? { decision.rolloutPercent }

    /// The decision's reason as a C string, made once.
    package var reason: CText { text(for: "reason") { decision.reason } }

    /// A text kept by the result under `key`, made by `make` on first use.
    package func text(for key: String, _ make: () -> String) -> CText {
        texts.withLock { kept in
            if let known = kept[key] { return known }
            let made = CText(make())
            kept[key] = made
            return made
        }
    }
}

extension LoadedConfig.Origin {
    /// As the result JSON spells it; a result no config decided says "none".
    package static func name(_ origin: Self?) -> String { origin?.rawValue ?? "none" }
}
