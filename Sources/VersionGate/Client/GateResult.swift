import Synchronization
import VersionGateC

/// One check's answer, immutable. Every string is a CText shared with the
/// snapshot or catalog it came from, valid for as long as the result lives.
final class GateResult: Sendable {
    let status: GateStatus
    let shouldPrompt: Bool
    let current: String?
    let title, message, actionLabel, dismissLabel, storeURL: CText?
    /// An https page for when no handler opens `storeURL`'s scheme.
    let storeWebFallback: String?
    /// Why a store URL was refused or a fallback used.
    let storeNote: String?
    let minRequired, latest: CText?
    let errorCode: Int32
    let errorMessage: CText?
    private let languageChoice: LanguageChoice
    private enum LanguageChoice: Sendable {
        case resolved(String)
        case deferred(String?, CheckEnvironment)
    }

    /// The catalog language of the texts (or that they would have).
    var language: String {
        switch languageChoice {
        case .resolved(let language): return language
        case .deferred(let option, let environment): return environment.language(option: option)
        }
    }
    let source: String?
    let origin: String
    let templateVersion: Int64?
    let configAgeSeconds: Int64?
    /// A fetch that failed although the decision came from a good config
    /// (the cache, or the embedded default); the result error stays VG_OK.
    let fetchFailure: GateFailure?
    let note: String?
    private let json = Mutex<CText?>(nil)

    /// The catalog language is resolved only when a prompt needs texts or
    /// the JSON is asked for: a warm UP_TO_DATE check reads no environment.
    init(verdict: Verdict, failure: GateFailure?, snapshot: GateSnapshot, shouldPrompt: Bool,
         locale: (option: String?, environment: CheckEnvironment), source: String, loaded: LoadedConfig,
         store: StoreResolution?) {
        let texts = verdict.status == .upToDate
            ? nil : CatalogTexts.forLanguage(locale.environment.language(option: locale.option))
        status = verdict.status
        self.shouldPrompt = shouldPrompt
        current = verdict.currentText
        switch verdict.status {
        case .mandatory:
            title = texts?.mandatoryTitle
            message = snapshot.updateMessage ?? texts?.mandatoryMessage
            actionLabel = texts?.updateLabel
            dismissLabel = nil
        case .optional:
            title = texts?.optionalTitle
            message = snapshot.updateMessage ?? texts?.optionalMessage
            actionLabel = texts?.updateLabel
            dismissLabel = texts?.laterLabel
        case .upToDate:
            title = nil; message = nil; actionLabel = nil; dismissLabel = nil
        }
        storeURL = store?.url.map(CText.init)
        storeWebFallback = store?.webFallback
        storeNote = store?.note
        minRequired = snapshot.minRequired
        latest = snapshot.latest
        errorCode = failure?.code ?? VG_OK.rawValue
        errorMessage = failure.map { CText($0.message) }
        languageChoice = texts.map { .resolved($0.language) } ?? .deferred(locale.option, locale.environment)
        self.source = source
        origin = loaded.origin.rawValue
        templateVersion = snapshot.templateVersion
        configAgeSeconds = loaded.ageSeconds
        fetchFailure = loaded.fetchFailure
        note = loaded.note
    }

    /// UP_TO_DATE because of `failure`: nothing else is known.
    init(failOpen failure: GateFailure, language: String = "en", source: String? = nil, current: String? = nil) {
        status = .upToDate
        shouldPrompt = false
        self.current = current
        title = nil; message = nil; actionLabel = nil; dismissLabel = nil; storeURL = nil
        storeWebFallback = nil; storeNote = nil
        minRequired = nil; latest = nil
        errorCode = failure.code
        errorMessage = CText(failure.message)
        languageChoice = .resolved(language)
        self.source = source
        origin = "none"
        templateVersion = nil
        configAgeSeconds = nil
        fetchFailure = nil
        note = nil
    }

    /// Every field as one JSON object, made on first use (most launchers never ask).
    var jsonText: CText {
        json.withLock { cached in
            if let cached { return cached }
            let made = CText(ResultJSON(self).encoded())
            cached = made
            return made
        }
    }
}
