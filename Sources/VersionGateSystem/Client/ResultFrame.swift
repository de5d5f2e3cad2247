import VersionGateCore
import Synchronization

/// What every result of one snapshot under one set of options shares,
/// made once instead of at every check (issue #23): the source's name, the
/// config problem (the snapshot's, or the URL policy refusing its update
/// URL) as a C string, the OPTIONAL session key's fixed parts, and the
/// prompt texts per locale. GateClient keeps the last one and makes a new
/// one when `set` replaces the options or the source hands a new snapshot.
package final class ResultFrame: Sendable {
    package let snapshot: GateSnapshot?
    /// The options' identity: a frame answers only for the options it was made for.
    let options: (any AnyObject & Sendable)?
    package let source: String?
    /// The `locale` option and the client's environment: an UP_TO_DATE
    /// result's language is read when asked.
    let localeOption: String?
    let environment: CheckEnvironment?
    /// A non-empty `locale` option alone decides the texts and the region:
    /// then the environment is not compared at each prompting check.
    private let optionDecidesLocale: Bool
    /// The language of a result no config decided, as its maker said.
    let fixedLanguage: String?
    /// A problem that did not stop the decision (VG_ECONFIG), and its C string.
    package let failure: GateFailure?
    package let errorMessage: CText?
    /// How the app was installed (InPlaceUpdate.installKind), for the result's install_kind.
    package let installKind: String?
    /// The OPTIONAL session key is `source \0 platform \0 current \0 latest`:
    /// all but the current version, made once.
    private let sessionKeyHead, sessionKeyTail: String
    /// The prompt texts for the last locale seen (LocaleFrame).
    private let locale = Mutex<LocaleFrame?>(nil)
    /// The client's prompt state for this source and platform, for the
    /// client's own System only (its paths are made once).
    private let promptState = Mutex<PromptState??>(nil)

    init(snapshot: GateSnapshot, options: ClientOptions, identity: any AnyObject & Sendable, source: String,
         environment: CheckEnvironment, installKind: String? = nil) {
        self.environment = environment
        self.installKind = installKind
        self.snapshot = snapshot
        self.options = identity
        self.source = source
        (localeOption, fixedLanguage) = (options.locale, nil)
        optionDecidesLocale = options.locale.map { !$0.isEmpty } ?? false
        let urlProblem = snapshot.updateURLRefusal(options.urlPolicy).map { why in
            GateFailure.config("\(source): \(GateConfig.updateURLKey(platform: options.platform)) refused: \(why)")
        }
        failure = snapshot.problem.map(GateFailure.config) ?? urlProblem
        errorMessage = failure.map { CText($0.message) }
        sessionKeyHead = source + "\u{0}" + options.platform + "\u{0}"
        sessionKeyTail = "\u{0}" + (snapshot.latest?.string ?? "")
    }

    /// A result that no config decided: nothing but the source's name and why.
    init(failOpen failure: GateFailure, source: String?, language: String) {
        (snapshot, options, self.source, self.failure, environment) = (nil, nil, source, failure, nil)
        installKind = nil
        (localeOption, fixedLanguage, optionDecidesLocale) = (nil, language, false)
        errorMessage = CText(failure.message)
        (sessionKeyHead, sessionKeyTail) = ("", "")
    }

    func isFrame(of snapshot: GateSnapshot, _ identity: any AnyObject & Sendable) -> Bool {
        self.snapshot === snapshot && options === identity
    }

    /// Made in one buffer of the right size (a + b + c grows it twice).
    func sessionKey(current: String) -> String {
        var key = ""
        key.reserveCapacity(sessionKeyHead.utf8.count + current.utf8.count + sessionKeyTail.utf8.count)
        key += sessionKeyHead
        key += current
        key += sessionKeyTail
        return key
    }

    /// The texts for the environment's locale: the last ones while LANGUAGE,
    /// LC_ALL, LC_MESSAGES and LANG read the same (or the option decides),
    /// else made by `make`.
    func locale(_ environment: CheckEnvironment, make: () -> LocaleFrame) -> LocaleFrame {
        if let known = locale.withLock({ $0 }), optionDecidesLocale || environment.hasLocale(known.inputs) {
            return known
        }
        let made = make()
        locale.withLock { $0 = made }
        return made
    }

    /// The client's PromptState, made on first use (nil inside: no state directory).
    func promptState(_ make: () -> PromptState?) -> PromptState? {
        if let known = promptState.withLock({ $0 }) { return known }
        let made = make()
        promptState.withLock { $0 = .some(made) }
        return made
    }
}

/// A prompt's texts for one snapshot, options and locale: the catalog's
/// labels, the operator's message for the user's languages, and the store
/// URL (unless the App Store's, which a lookup may change).
package final class LocaleFrame: Sendable {
    let inputs: LocaleInputs
    package let texts: CatalogTexts
    /// update_message_<lang> along the locale chain, else update_message.
    package let updateMessage: CText?
    /// release_notes_<lang> along the locale chain, else release_notes.
    package let releaseNotes: CText?
    /// From the `locale` option, else the environment's locale name ("de_AT" → "AT").
    let region: String?
    /// nil when the store is resolved at each check (the App Store).
    let store: StoreAnswer?

    init(inputs: LocaleInputs, texts: CatalogTexts, updateMessage: CText?, releaseNotes: CText?, region: String?,
         store: StoreAnswer?) {
        (self.inputs, self.texts, self.updateMessage, self.releaseNotes, self.region, self.store) =
            (inputs, texts, updateMessage, releaseNotes, region, store)
    }
}

/// A store resolution with its URL as a C string, shared by the results that show it.
package final class StoreAnswer: Sendable {
    package let resolution: StoreResolution
    package let url: CText?

    init(_ resolution: StoreResolution) {
        self.resolution = resolution
        url = resolution.url.map(CText.init)
    }
}
