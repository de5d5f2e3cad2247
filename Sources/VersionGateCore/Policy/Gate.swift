/// What the launcher should do; the C ABI maps it to `vg_status`.
/// scripts/generate writes the cases and names from declarations/statuses.decl.
package enum GateStatus: Int, Sendable {
    // BEGIN GENERATED statuses (scripts/generate)
    /// Nothing to show; also every error.
    case upToDate = 0
    /// Newer version exists: dismissible prompt.
    case optional = 1
    /// Below the minimum: blocking prompt.
    case mandatory = 2
    // END GENERATED statuses

    /// As the header and the result JSON spell it.
    package var name: String {
        switch self {
        // BEGIN GENERATED status_names (scripts/generate)
        case .upToDate: return "UP_TO_DATE"
        case .optional: return "OPTIONAL"
        case .mandatory: return "MANDATORY"
        // END GENERATED status_names
        }
    }
}

/// The gate rule (docs/design.md, "The gate rule"), pure: no I/O, no clock, no environment. The
/// rule is written once, over any form of version the caller has.
package enum Gate {
    /// `order(current, threshold)` is -1, 0 or 1, nil when either is not a
    /// valid version. An invalid current gives nil for both thresholds, so
    /// it never blocks on our own doubt; an absent or invalid threshold does
    /// not count; each threshold stands alone, so min > latest still blocks.
    @inline(__always)
    package static func decide<V>(current: V?, minRequired: V?, latest: V?, order: (V, V) -> Int?) -> GateStatus {
        guard let current else { return .upToDate }
        if let minRequired, let against = order(current, minRequired), against < 0 { return .mandatory }
        if let latest, let against = order(current, latest), against < 0 { return .optional }
        return .upToDate
    }

    /// On parsed versions (nil = invalid or absent).
    package static func decide(current: Version?, minRequired: Version?, latest: Version?) -> GateStatus {
        decide(current: current, minRequired: minRequired, latest: latest) { $0.compare(to: $1) }
    }

    /// On C strings (NULL = absent): `Version.compare(cString:_:)` and its
    /// plain-release road decide. The road `vg_decide` takes.
    package static func decide(current: UnsafePointer<CChar>?, minRequired: UnsafePointer<CChar>?,
                       latest: UnsafePointer<CChar>?) -> GateStatus {
        decide(current: current, minRequired: minRequired, latest: latest, order: Version.compare(cString:_:))
    }
}
