import VersionGateCore
import Synchronization

/// One check's answer, immutable. Every string is a CText shared with the
/// snapshot or catalog it came from, valid for as long as the result lives.
package final class GateResult: Sendable {
    package let status: GateStatus
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
    package let origin: String
    package let templateVersion: Int64?
    package let configAgeSeconds: Int64?
    /// A fetch that failed although the decision came from a good config
    /// (the cache, or the embedded default); the result error stays VG_OK.
    package let fetchFailure: GateFailure?
    package let note: String?
    /// The rollout percent when a staged rollout decided this result.
    package let rolloutPercent: Int?
    /// The JSON form, made on first use by the C ABI (most launchers never ask).
    package let json = Mutex<CText?>(nil)

    /// The catalog language is resolved only when a prompt needs texts or
    /// the JSON is asked for: a warm UP_TO_DATE check reads no environment.
    /// `texts` and `storeURL` are given for a prompting verdict, nil for UP_TO_DATE;
    /// `updateMessage` is the operator's message for the user's languages (GateSnapshot).
    package init(verdict: Verdict, failure: GateFailure?, snapshot: GateSnapshot, shouldPrompt: Bool,
         locale: (option: String?, environment: CheckEnvironment), texts: CatalogTexts?, source: String,
         loaded: LoadedConfig, note: String?, store: StoreResolution?, storeURL: CText?, graceMessage: CText? = nil,
         updateMessage: CText? = nil) {
        status = verdict.status
        self.shouldPrompt = shouldPrompt
        current = verdict.currentText
        switch verdict.status {
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
        origin = loaded.origin.rawValue
        templateVersion = snapshot.templateVersion
        configAgeSeconds = loaded.ageSeconds
        fetchFailure = loaded.fetchFailure
        self.note = note
        rolloutPercent = verdict.rolloutPercent
    }

    /// UP_TO_DATE because of `failure`: nothing else is known.
    package init(failOpen failure: GateFailure, language: String = "en", source: String? = nil, current: String? = nil) {
        status = .upToDate
        shouldPrompt = false
        self.current = current
        title = nil; message = nil; actionLabel = nil; dismissLabel = nil; skipLabel = nil; storeURL = nil
        storeWebFallback = nil; storeNote = nil; storeRefusedSome = false
        minRequired = nil; latest = nil
        self.failure = failure
        errorMessage = CText(failure.message)
        languageChoice = .resolved(language)
        self.source = source
        origin = "none"
        templateVersion = nil
        configAgeSeconds = nil
        fetchFailure = nil
        note = nil
        rolloutPercent = nil
    }
}
