/// The decision for one version against one snapshot, as one value: the
/// status, the rule that decided, what it decided on, and a reason for
/// people (docs/design.md, "The decision"). Pure. Every door (the result's
/// getters and JSON, the command, Python) tells this value; none re-derives it.
///
/// 1. A version in `blocked_versions_<platform>` is MANDATORY (a kill switch).
/// 2. Else the gate rule (Gate.decide); a MANDATORY before the minimum's
///    `effective_at` is OPTIONAL and carries the date (a grace period,
///    never staged).
/// 3. An OPTIONAL for a new latest version is shown only to the
///    installations in its rollout (`Rollout`); the others are UP_TO_DATE.
package struct Decision: Sendable {
    package let status: GateStatus
    package let rule: GateRule
    /// The trimmed current version, nil when it is invalid.
    package let currentText: String?
    /// Why it fails open (an invalid version), or the snapshot's problems
    /// that did not stop the decision.
    package let failure: GateFailure?
    /// In a grace period: when the update becomes required (Unix seconds).
    package let requiredFrom: Int64?
    /// The rollout percent when a staged rollout decided (OPTIONAL inside
    /// it, UP_TO_DATE outside): what share of installations get this answer.
    package let rolloutPercent: Int?
    /// This installation's bucket (0-99) when a staged rollout decided.
    package let rolloutBucket: Int?
    /// What it decided on; nil for a decision without a config.
    package let snapshot: GateSnapshot?

    /// - Parameters:
    ///   - now: wall clock, Unix seconds (for the grace period).
    ///   - rolloutBucket: the installation's bucket for `latest`, asked only
    ///     for a staged OPTIONAL; nil when there is no installation id.
    package init(current: UnsafeBufferPointer<UInt8>, snapshot: GateSnapshot, now: Int64 = 0,
                 rolloutBucket: (_ latest: String) -> Int? = { _ in nil }) {
        self.snapshot = snapshot
        guard let version = Version(bytes: current) else {
            (status, rule, currentText, requiredFrom, rolloutPercent, self.rolloutBucket) =
                (.upToDate, .failOpen, nil, nil, nil, nil)
            failure = .invalidVersion("current version \"\(OneLine.text(current))\" is not a valid version")
            return
        }
        currentText = version.trimmedText
        failure = snapshot.problem.map(GateFailure.config)
        if snapshot.blockedParsed.contains(where: { $0.compare(to: version) == 0 }) {
            (status, rule, requiredFrom, rolloutPercent, self.rolloutBucket) = (.mandatory, .blocked, nil, nil, nil)
            return
        }
        let decided = withExtendedLifetime(snapshot) {
            Gate.decide(current: version, minRequired: snapshot.minRequiredVersion, latest: snapshot.latestVersion)
        }
        switch decided {
        case .mandatory:
            if let effectiveAt = snapshot.minEffectiveAt, now < effectiveAt {
                (status, rule, requiredFrom) = (.optional, .gracePeriod, effectiveAt)
            } else {
                (status, rule, requiredFrom) = (.mandatory, .belowMinimum, nil)
            }
            (rolloutPercent, self.rolloutBucket) = (nil, nil)
        case .optional:
            requiredFrom = nil
            let percent = snapshot.rolloutPercent
            guard percent < 100, let latest = snapshot.latest?.string else {
                (status, rule, rolloutPercent, self.rolloutBucket) = (.optional, .belowLatest, nil, nil)
                return
            }
            let bucket = rolloutBucket(latest)
            let inside = bucket.map { $0 < percent } ?? false
            (status, rule) = inside ? (.optional, .belowLatest) : (.upToDate, .outsideRollout)
            (rolloutPercent, self.rolloutBucket) = (percent, bucket)
        case .upToDate:
            (status, rule, requiredFrom, rolloutPercent, self.rolloutBucket) = (.upToDate, .upToDate, nil, nil, nil)
        }
    }

    /// UP_TO_DATE because nothing could decide: `failure` says why.
    package init(failOpen failure: GateFailure, current: String? = nil) {
        (status, rule, currentText, requiredFrom, rolloutPercent, rolloutBucket) =
            (.upToDate, .failOpen, current, nil, nil, nil)
        self.failure = failure
        snapshot = nil
    }

    /// One English line naming the numbers, e.g. `1.0.40 is in
    /// blocked_versions_linux`. Made on demand: a warm check never pays for it.
    package var reason: String {
        guard let snapshot, let current = currentText, rule != .failOpen else {
            return failure?.message ?? "no config decided"
        }
        let platform = snapshot.platform
        let minimum = "\(GateConfig.minRequiredKey(platform: platform)) \(snapshot.minRequired?.string ?? "")"
        let latest = "\(GateConfig.latestKey(platform: platform)) \(snapshot.latest?.string ?? "")"
        switch rule {
        case .blocked:
            return "\(current) is in \(GateConfig.blockedVersionsKey(platform: platform))"
        case .belowMinimum:
            return "\(current) is below \(minimum)"
        case .gracePeriod:
            return "\(current) is below \(minimum), required from \(RFC3339.text(requiredFrom ?? 0))"
        case .belowLatest:
            let staged = rolloutPercent.map { percent in
                ", inside its staged rollout (bucket \(rolloutBucket ?? 0), shown below \(percent))"
            } ?? ""
            return "\(current) is below \(latest)\(staged)"
        case .outsideRollout:
            let placement = rolloutBucket.map { "bucket \($0), shown below \(rolloutPercent ?? 100)" }
                ?? "no installation id to place this installation"
            return "\(current) is below \(latest), outside its staged rollout (\(placement))"
        case .upToDate:
            let thresholds = [snapshot.minRequired.map { _ in minimum }, snapshot.latest.map { _ in latest }]
                .compactMap { $0 }
            if thresholds.isEmpty {
                return "\(current): neither \(GateConfig.minRequiredKey(platform: platform)) nor "
                    + "\(GateConfig.latestKey(platform: platform)) is set"
            }
            return "\(current) is not below \(join(thresholds, separator: " or "))"
        case .failOpen:
            return failure?.message ?? "no config decided"
        }
    }
}
