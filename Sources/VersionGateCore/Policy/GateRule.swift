/// The rule that decided a check (docs/design.md, "The decision"). The
/// names are part of the ABI, like the error codes: stable, lowercase,
/// append-only (the header lists them; vg_result_rule returns them).
package enum GateRule: Int, Sendable, CaseIterable {
    /// The version is in blocked_versions_<platform>: MANDATORY.
    case blocked
    /// Below min_required_version_<platform> (in effect): MANDATORY.
    case belowMinimum
    /// Below the minimum, before its effective_at: OPTIONAL, with the date.
    case gracePeriod
    /// Below latest_version_<platform>: OPTIONAL.
    case belowLatest
    /// Below latest, but this installation is outside its staged rollout: UP_TO_DATE.
    case outsideRollout
    /// Not below either threshold: UP_TO_DATE.
    case upToDate
    /// No config decided, or the current version is invalid: UP_TO_DATE.
    case failOpen
    /// Below latest, but this system does not meet latest_version_<platform>_requires: UP_TO_DATE.
    case requirementsUnmet
    /// Below the minimum, but the user's channel does not serve it yet for
    /// this system: OPTIONAL (docs/design.md, "Asking the channel").
    case channelBehind
    /// Below the minimum, but the administrator's policy accepts it
    /// (`mandatory: warn`): OPTIONAL (docs/design.md, "The administrator's policy").
    case policy

    /// As the JSON, the header and vg_result_rule spell it; static storage,
    /// so a C caller may keep the pointer forever.
    package var name: StaticString {
        switch self {
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
        }
    }

    package var nameText: String { name.description }
}
