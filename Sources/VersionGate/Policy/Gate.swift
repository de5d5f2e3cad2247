/// What the launcher should do; raw values are the C ABI's `vg_status`.
enum GateStatus: Int, Sendable {
    case upToDate = 0
    case optional = 1
    case mandatory = 2
}

/// The decision of SPEC §4, pure: no I/O, no clock, no environment.
enum Gate {
    /// `current` nil means it was invalid: never block on our own doubt.
    /// A nil threshold is absent (callers pass invalid or empty ones as nil),
    /// and each threshold stands alone, so min > latest still blocks.
    static func decide(current: Version?, minRequired: Version?, latest: Version?) -> GateStatus {
        guard let current else { return .upToDate }
        if let minRequired, current.compare(to: minRequired) < 0 { return .mandatory }
        if let latest, current.compare(to: latest) < 0 { return .optional }
        return .upToDate
    }
}
