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
    /// What every result of this snapshot and these options shares (made once).
    private let frame: ResultFrame
    /// The prompt's texts; nil for UP_TO_DATE.
    private let locale: LocaleFrame?
    /// The grace period's message, which replaces the prompt's.
    private let graceMessage: CText?
    private let store: StoreAnswer?
    /// Why the result fails open, or a config problem that did not stop the
    /// decision; nil when it came from a good config.
    package let failure: GateFailure?
    package let errorMessage: CText?
    /// The config the decision came from; nil when none decided.
    private let loaded: LoadedConfig?
    package let note: String?
    /// The administrator's policy for this client's app (docs/design.md, "The administrator's policy").
    package let managed: ManagedFacts
    /// vg_result_get's answers, the reason and the JSON (`jsonKey`), by key,
    /// made on first use and kept for the result's life (the C caller holds
    /// the pointers; most launchers never ask).
    private let texts = Mutex([String: CText]())
    /// The route of the check's last request (RequestTrace); nil when it made none.
    package let route: String?
    /// Not a result field's key, so the JSON has a place among them.
    package static let jsonKey = "\u{0}json"

    /// `locale` is given for a prompting verdict, nil for UP_TO_DATE (whose
    /// language is then read from the client's environment when asked); `store` too.
    package init(decision: consuming Decision, shouldPrompt: Bool, frame: ResultFrame, failure: GateFailure?,
                 errorMessage: CText?, locale: LocaleFrame?, store: StoreAnswer?,
                 graceMessage: CText?, loaded: LoadedConfig, note: String?, managed: ManagedFacts, route: String?) {
        self.decision = decision
        self.shouldPrompt = shouldPrompt
        self.frame = frame
        self.locale = locale
        self.store = store
        self.graceMessage = graceMessage
        self.failure = failure
        self.errorMessage = errorMessage
        self.loaded = loaded
        self.note = note
        self.managed = managed
        self.route = route
    }

    /// UP_TO_DATE because of `failure`: nothing else is known.
    package init(failOpen failure: GateFailure, language: String = "en", source: String? = nil, current: String? = nil,
                 managed: ManagedFacts = .none, route: String? = nil) {
        decision = Decision(failOpen: failure, current: current)
        shouldPrompt = false
        frame = ResultFrame(failOpen: failure, source: source, language: language)
        (locale, graceMessage, store) = (nil, nil, nil)
        self.failure = failure
        errorMessage = frame.errorMessage
        (loaded, note) = (nil, nil)
        self.managed = managed
        self.route = route
    }

    /// Where the config came from; nil when none decided.
    package var origin: LoadedConfig.Origin? { loaded?.origin }
    package var configAgeSeconds: Int64? { loaded?.ageSeconds }
    /// A fetch that failed although the decision came from a good config
    /// (the cache, or the embedded default); the result error stays VG_OK.
    package var fetchFailure: GateFailure? { loaded?.fetchFailure }
    package var current: String? { decision.currentText }
    package var source: String? { frame.source }
    package var installKind: String? { frame.installKind }
    package var minRequired: CText? { decision.snapshot?.minRequired }
    package var latest: CText? { decision.snapshot?.latest }
    package var templateVersion: Int64? { decision.snapshot?.templateVersion }

    package var title: CText? {
        if case .channelBehind = rule { return locale?.texts.mandatoryTitle }
        switch status {
        case .mandatory: return locale?.texts.mandatoryTitle
        case .optional: return locale?.texts.optionalTitle
        case .upToDate: return nil
        }
    }
    package var message: CText? {
        guard let locale else { return nil }
        // Updating will not help on this system: say so, not "please update"
        // (docs/design.md, "Requirements").
        if decision.minimumUnsupported { return locale.texts.mandatoryUnsupportedMessage }
        // Required, but not offered here yet (docs/design.md, "Asking the channel").
        if case .channelBehind = rule { return locale.texts.channelMessage }
        switch status {
        case .mandatory:
            if let helpPage { return helpPage.message }
            return managedMessage ?? locale.updateMessage ?? locale.texts.mandatoryMessage
        case .optional: return graceMessage ?? locale.updateMessage ?? locale.texts.optionalMessage
        case .upToDate: return nil
        }
    }
    /// What is new in the latest version: OPTIONAL results only (a
    /// MANDATORY prompt is not the place to sell an update).
    package var releaseNotes: CText? { status == .optional ? locale?.releaseNotes : nil }
    package var actionLabel: CText? {
        if status == .mandatory, helpPage != nil { return locale?.texts.helpPageLabel }
        return status == .upToDate ? nil : locale?.texts.updateLabel
    }
    package var dismissLabel: CText? { status == .optional ? locale?.texts.laterLabel : nil }
    package var skipLabel: CText? { status == .optional ? locale?.texts.skipLabel : nil }
    /// A MANDATORY shows the administrator's link instead of the store's,
    /// or none when the administrator gave only a message.
    package var storeURL: CText? {
        guard status == .mandatory, managed.replacesStore else { return store?.url }
        return managed.url.map { url in text(for: "managed_url") { url } }
    }

    /// The administrator's message, for a MANDATORY prompt.
    private var managedMessage: CText? { managed.message.map { message in text(for: "managed_message") { message } } }

    /// A managed MANDATORY whose button opens the administrator's link: its
    /// message says the link (docs/design.md, "The administrator's policy"),
    /// after the administrator's text, else the built-in one.
    private var helpPage: (message: CText, url: String)? {
        guard status == .mandatory, let url = managed.url, let locale else { return nil }
        return (text(for: "managed_help_message") {
            (managed.message ?? locale.updateMessage?.string ?? locale.texts.mandatoryMessage.string) + "\n\n" + url
        }, url)
    }
    /// An https page for when no handler opens `storeURL`'s scheme.
    package var storeWebFallback: String? {
        status == .mandatory && managed.replacesStore ? nil : store?.resolution.webFallback
    }
    /// Why a store URL was refused or a fallback used.
    package var storeNote: String? { store?.resolution.note }
    /// Whether the URL policy refused a candidate store URL.
    package var storeRefusedSome: Bool { store?.resolution.refusedSome ?? false }

    /// The catalog language of the texts (or that they would have).
    package var language: String {
        if let locale { return locale.texts.language }
        if let language = frame.fixedLanguage { return language }
        return frame.environment?.language(option: frame.localeOption) ?? "en"
    }

    /// The proxy of the check's last request, `scheme://host:port`
    /// (`scheme://***@host:port` with credentials), or "direct"; nil when
    /// the check made no request (docs/design.md, "The desktop's proxy").
    package var proxy: String? { routeParts?.proxy }

    /// Where that proxy came from: "option", "environment" or "desktop"; nil when direct or no request.
    package var proxyFrom: String? { routeParts?.from }

    /// "direct", or "PROXY from ORIGIN", apart.
    private var routeParts: (proxy: String, from: String?)? {
        route.map { text in
            let words = text.split(separator: " ")
            guard words.count == 3, words[1] == "from" else { return (text, nil) }
            return (String(words[0]), String(words[2]))
        }
    }

    /// The rollout percent when a staged rollout decided this result.
    package var rolloutPercent: Int? { decision.rolloutPercent }

    /// The decision's reason as a C string, made once.
    package var reason: CText { text(for: "reason") { decision.reason } }

    /// A text kept by the result under `key`, made by `make` on first use.
    /// Made outside the lock (the JSON asks for the reason); of two threads
    /// making it at once, the first one kept is what both return.
    package func text(for key: String, _ make: () -> String) -> CText {
        if let known = texts.withLock({ $0[key] }) { return known }
        let made = CText(make())
        return texts.withLock { kept in
            if let known = kept[key] { return known }
            kept[key] = made
            return made
        }
    }
}

extension LoadedConfig.Origin {
    /// As the result JSON spells it; a result no config decided says "none".
    package static func name(_ origin: Self?) -> String { origin?.rawValue ?? "none" }
}
