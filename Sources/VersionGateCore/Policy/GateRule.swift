/// The rule that decided a check (docs/design.md, "The decision"). The
/// names are part of the ABI, like the error codes: stable, lowercase,
/// append-only (the header lists them; vg_result_rule returns them).
/// scripts/generate writes the cases and names from declarations/rules.decl.
package enum GateRule: Int, Sendable, CaseIterable {
    // BEGIN GENERATED rules (scripts/generate)
    /// The version is in blocked_versions_<platform>: MANDATORY.
    case blocked
    /// Below min_required_version_<platform> (in effect): MANDATORY.
    case belowMinimum
    /// Below the minimum before its _effective_at: OPTIONAL.
    case gracePeriod
    /// Below latest_version_<platform>: OPTIONAL.
    case belowLatest
    /// Below latest, outside its staged rollout: UP_TO_DATE.
    case outsideRollout
    /// Below neither threshold: UP_TO_DATE.
    case upToDate
    /// No config decided, or the version is invalid: UP_TO_DATE.
    case failOpen
    /// Below latest, whose latest_version_<platform>_requires
    /// this system does not meet: UP_TO_DATE.
    case requirementsUnmet
    /// Below the minimum, which the user's own channel (the
    /// "channel" field) does not serve this system yet: OPTIONAL.
    case channelBehind
    /// Below the minimum, which the administrator's policy accepts
    /// ("mandatory": "warn"; the "policy_files" field): OPTIONAL.
    case policy
    // END GENERATED rules

    /// As the JSON, the header and vg_result_rule spell it; static storage,
    /// so a C caller may keep the pointer forever.
    package var name: StaticString {
        switch self {
        // BEGIN GENERATED rule_names (scripts/generate)
        case .blocked: return "blocked"
        case .belowMinimum: return "below_minimum"
        case .gracePeriod: return "grace_period"
        case .belowLatest: return "below_latest"
        case .outsideRollout: return "outside_rollout"
        case .upToDate: return "up_to_date"
        case .failOpen: return "fail_open"
        case .requirementsUnmet: return "requirements_unmet"
        case .channelBehind: return "channel_behind"
        case .policy: return "policy"
        // END GENERATED rule_names
        }
    }

    package var nameText: String { name.description }
}
