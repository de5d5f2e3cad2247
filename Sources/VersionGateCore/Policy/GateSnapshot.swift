/// One config prepared for many checks, for one platform: thresholds
/// validated once and every text the result hands to C kept as a C string.
/// Building it is pure; every result comes from exactly one snapshot.
package final class GateSnapshot: Sendable {
    /// The platform whose keys were read (`min_required_version_<platform>` …).
    package let platform: String
    package let minRequired: CText?
    package let latest: CText?
    /// minRequired, latest and the blocked list parsed once, for every
    /// decision (docs/design.md, "The decision"). Each Version borrows the
    /// bytes of a CText this snapshot keeps, so it is valid while it lives.
    nonisolated(unsafe) package let minRequiredVersion: Version?
    nonisolated(unsafe) package let latestVersion: Version?
    nonisolated(unsafe) package let blockedParsed: [Version]
    private let blockedTexts: [CText]
    /// update_message, sanitized: the message for every language without its own.
    package let updateMessage: CText?
    /// update_message_<lang>, sanitized, by the locale name the suffix
    /// names, normalized ("pt_BR", "de", "sr@latin", "zh_TW" for zh_Hant).
    private let localizedMessages: [String: CText]

    /// The operator's message for the user's chain of locale names
    /// (LocaleChoice.Choice.chain): the first update_message_<name> along
    /// it, else update_message; nil = the built-in text.
    package func updateMessage(chain: [String]) -> CText? {
        Self.first(along: chain, in: localizedMessages) ?? updateMessage
    }
    /// release_notes and release_notes_<lang>, sanitized with their line
    /// breaks (MessageSanitizer.releaseNotes), chosen like the message.
    package let releaseNotes: CText?
    private let localizedReleaseNotes: [String: CText]

    package func releaseNotes(chain: [String]) -> CText? {
        Self.first(along: chain, in: localizedReleaseNotes) ?? releaseNotes
    }

    private static func first(along chain: [String], in texts: [String: CText]) -> CText? {
        guard !texts.isEmpty else { return nil }
        for name in chain {
            if let text = texts[name] { return text }
        }
        return nil
    }
    /// The config's update_url_<platform> as written; the store resolver
    /// decides with the client's URL policy whether it may be used.
    package let updateURLText: String?
    /// Problems that did not stop the decision (an unusable threshold):
    /// the result reports them as VG_ECONFIG.
    package let problem: String?
    /// The same, one entry per problem, without the document's name (lint).
    package let problems: [String]
    package let templateVersion: Int64?
    /// blocked_versions_<platform>: the valid entries, trimmed (for lint and
    /// the result; decisions use blockedParsed).
    package var blockedVersions: [String] { blockedTexts.map(\.string) }
    /// min_required_version_<platform>_effective_at, Unix seconds; nil =
    /// the minimum blocks now (absent, or unparsable: then reported).
    package let minEffectiveAt: Int64?
    /// latest_version_<platform>_rollout_percent, 0-100 (100 when absent or invalid).
    package let rolloutPercent: Int
    /// strict_min_required_<platform>: the minimum blocks whatever the
    /// user's channel serves. A value other than true or false is reported
    /// and counts as true: the operator wrote the key to keep the block.
    package let strictMinimum: Bool
    /// What the minimum and the latest version need of the system
    /// (`..._requires`); no clauses when absent (docs/design.md, "Requirements").
    package let minRequires, latestRequires: Requirements
    /// Why the client's `policy` refuses the config's update URL; nil when
    /// it is allowed or absent. Judging a URL costs more than the whole rest
    /// of a check: the client asks once per snapshot and options (ResultFrame).
    package func updateURLRefusal(_ policy: StoreURLPolicy) -> String? {
        updateURLText.flatMap(policy.refusal(of:))
    }

    package init(config: GateConfig, platform: String, documentName: String) {
        var problems: [String] = []

        func threshold(_ key: String) -> CText? {
            if config.nonStringKeys.contains(key) {
                problems.append("\(key) is not a JSON string; ignored")
                return nil
            }
            guard let raw = config.values[key], !raw.isEmpty else { return nil }
            guard let text = withVersion(raw, { $0?.trimmedText }) else {
                problems.append("\(key) \"\(OneLine.text(raw))\" is not a valid version; ignored")
                return nil
            }
            return CText(text)
        }
        self.platform = platform
        minRequired = threshold(GateConfig.minRequiredKey(platform: platform))
        latest = threshold(GateConfig.latestKey(platform: platform))
        minRequiredVersion = minRequired.flatMap { Version(bytes: $0.bytes) }
        latestVersion = latest.flatMap { Version(bytes: $0.bytes) }

        updateMessage = config.values[GateConfig.updateMessageKey]
            .flatMap(MessageSanitizer.sanitize).map(CText.init)
        localizedMessages = Self.localized(config.values, prefix: GateConfig.updateMessageKey + "_",
                                           MessageSanitizer.sanitize)
        releaseNotes = config.values[GateConfig.releaseNotesKey].flatMap(MessageSanitizer.releaseNotes).map(CText.init)
        localizedReleaseNotes = Self.localized(config.values, prefix: GateConfig.releaseNotesKey + "_",
                                               MessageSanitizer.releaseNotes)

        updateURLText = config.values[GateConfig.updateURLKey(platform: platform)].flatMap { $0.isEmpty ? nil : $0 }

        blockedTexts = Self.blocked(config.values[GateConfig.blockedVersionsKey(platform: platform)],
                                    key: GateConfig.blockedVersionsKey(platform: platform), problems: &problems)
            .map(CText.init)
        blockedParsed = blockedTexts.compactMap { Version(bytes: $0.bytes) }
        minEffectiveAt = Self.minEffectiveAt(config, key: GateConfig.minEffectiveAtKey(platform: platform),
                                             problems: &problems)
        rolloutPercent = Self.rolloutPercent(config, key: GateConfig.rolloutPercentKey(platform: platform),
                                             problems: &problems)
        strictMinimum = Self.strictMinimum(config, key: GateConfig.strictMinimumKey(platform: platform),
                                           problems: &problems)

        func requirements(_ key: String) -> Requirements {
            guard let raw = config.values[key], !ASCII.trimmingBlanks(raw).isEmpty else { return Requirements(clauses: []) }
            let (parsed, malformed) = Requirements.parse(raw)
            problems += malformed.map { "\(key) \($0)" }
            return parsed
        }
        minRequires = requirements(GateConfig.minRequiresKey(platform: platform))
        latestRequires = requirements(GateConfig.latestRequiresKey(platform: platform))

        templateVersion = config.templateVersion
        self.problems = problems
        problem = problems.isEmpty ? nil : "\(documentName): " + join(problems, separator: "; ")
    }

    /// When the minimum starts to block; nil (from now) when absent or not an RFC 3339 time.
    private static func minEffectiveAt(_ config: GateConfig, key: String, problems: inout [String]) -> Int64? {
        guard let raw = config.values[key], !raw.isEmpty else { return nil }
        let seconds = RFC3339.seconds(ASCII.trimmingBlanks(raw))
        if seconds == nil {
            problems.append("\(key) \"\(OneLine.text(raw))\" is not an RFC 3339 time; the minimum counts from now")
        }
        return seconds
    }

    /// 0-100; 100 (everyone) when absent or unreadable.
    private static func rolloutPercent(_ config: GateConfig, key: String, problems: inout [String]) -> Int {
        guard let raw = config.values[key], !raw.isEmpty else { return 100 }
        guard let percent = Int64(decimal: ASCII.trimmingBlanks(raw)), (0...100).contains(percent) else {
            problems.append("\(key) \"\(OneLine.text(raw))\" is not a whole number 0-100; 100 used")
            return 100
        }
        return Int(percent)
    }

    /// false only when absent, empty or "false": the operator who wrote the key meant the block.
    private static func strictMinimum(_ config: GateConfig, key: String, problems: inout [String]) -> Bool {
        switch config.values[key].map({ ASCII.trimmingBlanks($0) }) {
        case nil where config.nonStringKeys.contains(key):
            problems.append("\(key) is not a JSON string (write \"true\" or \"false\"); true used")
            return true
        case nil, "", "false": return false
        case "true": return true
        case let other?:
            problems.append("\(key) \"\(OneLine.text(other))\" is neither true nor false; true used")
            return true
        }
    }

    /// `<prefix><lang>` keys (update_message_de, release_notes_pt_BR) by
    /// normalized name, each cleaned by `sanitize`; of two spellings of one
    /// name (update_message_pt_BR, update_message_pt-BR) the first in byte
    /// order counts. Empty and unparsable ones are left out.
    private static func localized(_ values: [String: String], prefix: String,
                                  _ sanitize: (String) -> String?) -> [String: CText] {
        var messages: [String: CText] = [:]
        for key in values.keys.filter({ $0.hasPrefix(prefix) }).sorted() {
            guard let name = LocaleChoice.normalizedName(String(decoding: key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)),
                  messages[name] == nil, let text = values[key].flatMap(sanitize) else { continue }
            messages[name] = CText(text)
        }
        return messages
    }

    /// The valid versions of a comma-separated list; each invalid entry is
    /// reported and ignored.
    private static func blocked(_ raw: String?, key: String, problems: inout [String]) -> [String] {
        guard let raw, !ASCII.trimmingBlanks(raw).isEmpty else { return [] }
        var valid: [String] = []
        for entry in raw.split(separator: ",", omittingEmptySubsequences: false) {
            let text = ASCII.trimmingBlanks(entry)
            if let version = withVersion(text, { $0?.trimmedText }) {
                valid.append(version)
            } else {
                problems.append("\(key) entry \"\(OneLine.text(text))\" is not a valid version; ignored")
            }
        }
        return valid
    }
}
