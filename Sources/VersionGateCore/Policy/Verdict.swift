/// The decision for one version against one snapshot (SPEC §4), with the
/// operator's controls on top, and the reason it fails open if it does. Pure.
///
/// 1. A version in `blocked_versions_<platform>` is MANDATORY (a kill switch).
/// 2. Else the gate rule; a MANDATORY before the minimum's `effective_at`
///    is OPTIONAL and carries the date (a grace period, never staged).
/// 3. An OPTIONAL for a new latest version is shown only to the
///    installations in its rollout (`Rollout`); the others are UP_TO_DATE.
package struct Verdict: Sendable {
    package let status: GateStatus
    /// The trimmed current version, nil when it is invalid.
    package let currentText: String?
    package let failure: GateFailure?
    /// In a grace period: when the update becomes required (Unix seconds).
    package let requiredFrom: Int64?
    /// Why the operator's controls changed the answer, for the result's note.
    package let note: String?
    /// The rollout percent when a staged rollout decided (OPTIONAL inside
    /// it, UP_TO_DATE outside): what share of installations get this answer.
    package let rolloutPercent: Int?

    /// - Parameters:
    ///   - now: wall clock, Unix seconds (for the grace period).
    ///   - rolloutBucket: the installation's bucket for `latest`, asked only
    ///     for a staged OPTIONAL; nil when there is no installation id.
    package init(current: UnsafeBufferPointer<UInt8>, snapshot: GateSnapshot, now: Int64 = 0,
                 rolloutBucket: (_ latest: String) -> Int? = { _ in nil }) {
        guard let version = Version(bytes: current) else {
            status = .upToDate
            currentText = nil
            failure = .invalidVersion("current version \"\(OneLine.text(current))\" is not a valid version")
            requiredFrom = nil
            note = nil
            rolloutPercent = nil
            return
        }
        currentText = version.trimmedText
        failure = snapshot.problem.map(GateFailure.config)
        (status, requiredFrom, note, rolloutPercent) = Self.decide(version, snapshot, now: now,
                                                                   rolloutBucket: rolloutBucket)
    }

    private static func decide(_ version: Version, _ snapshot: GateSnapshot, now: Int64,
                               rolloutBucket: (String) -> Int?) -> (GateStatus, Int64?, String?, Int?) {
        if snapshot.blockedVersions.contains(where: { entry in withVersion(entry) { $0?.compare(to: version) == 0 } }) {
            return (.mandatory, nil, "\(version.trimmedText) is a blocked version", nil)
        }
        let decided = withExtendedLifetime(snapshot) {
            Gate.decide(current: version,
                        minRequired: snapshot.minRequired.flatMap { Version(bytes: $0.bytes) },
                        latest: snapshot.latest.flatMap { Version(bytes: $0.bytes) })
        }
        if decided == .mandatory, let effectiveAt = snapshot.minEffectiveAt, now < effectiveAt {
            return (.optional, effectiveAt, "grace period: required from \(RFC3339.text(effectiveAt))", nil)
        }
        let percent = snapshot.rolloutPercent
        guard decided == .optional, percent < 100, let latest = snapshot.latest?.string else {
            return (decided, nil, nil, nil)
        }
        guard let bucket = rolloutBucket(latest) else {
            return (.upToDate, nil, "outside the staged rollout of \(latest): no installation id to place this installation",
                    percent)
        }
        if bucket < percent { return (.optional, nil, nil, percent) }
        return (.upToDate, nil, "outside the staged rollout of \(latest) (bucket \(bucket), shown below \(percent))", percent)
    }
}
