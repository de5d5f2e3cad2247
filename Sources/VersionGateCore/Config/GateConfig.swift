/// The thresholds and texts read from one gate document (docs/design.md,
/// "The gate rule", "Sources and the cache").
/// A plain value: no validation of versions here, the gate does that.
package struct GateConfig: Sendable, Equatable {
    /// String-valued keys. Flat document: top-level keys whose value is a JSON
    /// string. Template export: `parameters.<key>.defaultValue.value` and
    /// `parameterGroups.<group>.parameters.<key>.defaultValue.value`.
    package var values: [String: String]
    /// Keys present but unusable, reported so an operator can fix them (the
    /// gate counts them as absent: docs/design.md, "The gate rule"): a value that is not a JSON string, and in a
    /// template a parameter or `defaultValue` that is not an object, or a key
    /// defined in more than one place.
    package var nonStringKeys: Set<String>
    /// `version.versionNumber` of a template export (a decimal string);
    /// nil for flat documents, or when absent or not a decimal Int64.
    package var templateVersion: Int64?
    /// Who signed the document and when, once its signature was verified
    /// (option `trusted_keys`); nil for an unsigned document.
    package var signature: DocumentSignature?

    package init(values: [String: String] = [:], nonStringKeys: Set<String> = [], templateVersion: Int64? = nil,
                 signature: DocumentSignature? = nil) {
        self.values = values
        self.nonStringKeys = nonStringKeys
        self.templateVersion = templateVersion
        self.signature = signature
    }

    package static func minRequiredKey(platform: String) -> String { "min_required_version_\(platform)" }
    package static func latestKey(platform: String) -> String { "latest_version_\(platform)" }
    package static let updateMessageKey = "update_message"
    /// What is new in the latest version, shown in the OPTIONAL prompt.
    package static let releaseNotesKey = "release_notes"
    package static func updateURLKey(platform: String) -> String { "update_url_\(platform)" }
    /// Exact versions that are MANDATORY whatever the minimum says (a kill switch).
    package static func blockedVersionsKey(platform: String) -> String { "blocked_versions_\(platform)" }
    /// When the minimum starts to block (RFC 3339); before it, OPTIONAL with a date.
    package static func minEffectiveAtKey(platform: String) -> String { "min_required_version_\(platform)_effective_at" }
    /// The share (0-100) of installations shown the OPTIONAL prompt.
    package static func rolloutPercentKey(platform: String) -> String { "latest_version_\(platform)_rollout_percent" }
    /// What each version needs of the system (docs/design.md, "Requirements").
    package static func minRequiresKey(platform: String) -> String { "min_required_version_\(platform)_requires" }
    package static func latestRequiresKey(platform: String) -> String { "latest_version_\(platform)_requires" }
    /// "true": the minimum blocks whatever the user's channel serves (a
    /// security kill; docs/design.md, "Asking the channel").
    package static func strictMinimumKey(platform: String) -> String { "strict_min_required_\(platform)" }
}
