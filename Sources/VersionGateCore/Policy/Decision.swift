/// The decision for one version against one snapshot, as one value: the
/// status, the rule that decided, what it decided on, and a reason for
/// people (docs/design.md, "The decision"). Pure. Every door (the result's
/// getters and JSON, the command, Python) tells this value; none re-derives it.
///
/// 1. A version in `blocked_versions_<platform>` is MANDATORY (a kill switch).
/// 2. Else the gate rule (Gate.decide); a MANDATORY before the minimum's
///    `effective_at` is OPTIONAL and carries the date (a grace period,
///    never staged).
/// 3. An OPTIONAL for a new latest version this system cannot install
///    (`latest_version_<platform>_requires` unmet) is UP_TO_DATE; a
///    MANDATORY whose minimum it cannot run stays MANDATORY and says so
///    (docs/design.md, "Requirements").
/// 4. An OPTIONAL for a new latest version is shown only to the
///    installations in its rollout (`Rollout`); the others are UP_TO_DATE.
/// 5. A MANDATORY below the minimum whose user's channel does not serve it
///    yet is OPTIONAL (`judged(by:)`; docs/design.md, "Asking the channel").
/// 6. A MANDATORY below the minimum that the administrator's policy accepts
///    (`mandatory: warn`) is OPTIONAL (`accepted(byPolicy:)`; docs/design.md,
///    "The administrator's policy").
package struct Decision: Sendable {
    package let status: GateStatus
    package let rule: GateRule
    /// The trimmed current version, nil when it is invalid.
    package let current: VersionText?
    package var currentText: String? { current?.string }
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
    /// The requirement this system does not meet: of the latest version
    /// (rule requirementsUnmet), or of the minimum (MANDATORY or a grace
    /// period all the same: see `minimumUnsupported`).
    package let unmet: Requirements.Unmet?
    /// What the user's channel said, when the decision asked it.
    package let channel: ChannelAnswer?
    /// The administrator's policy file that accepted a MANDATORY (rule policy).
    package let policyFile: String?
    /// Below the minimum, and this system cannot run it.
    package var minimumUnsupported: Bool { unmet != nil && (rule == .belowMinimum || rule == .gracePeriod) }

    /// - Parameters:
    ///   - now: the wall clock, Unix seconds, asked only when the minimum has
    ///     an `effective_at` (the grace period): a warm check reads no clock.
    ///   - rolloutBucket: the installation's bucket for `latest`, asked only
    ///     for a staged OPTIONAL; nil when there is no installation id.
    ///   - facts: this system's values, asked only when a requirement
    ///     matters; the default knows none, so no requirement is met.
    package init(current: UnsafeBufferPointer<UInt8>, snapshot: GateSnapshot, now: () -> Int64 = { 0 },
                 rolloutBucket: (_ latest: String) -> Int? = { _ in nil },
                 facts: () -> SystemFacts = { SystemFacts() }) {
        guard let version = Version(bytes: current) else {
            self.init(.upToDate, .failOpen, nil, .invalidVersion(
                "current version \"\(OneLine.text(current))\" is not a valid version"), snapshot: snapshot)
            return
        }
        // Each road ends in the one memberwise init: an init that assigned
        // fields along the way was built on the stack and copied out.
        let text = VersionText(version.trimmedBytes)
        let failure = snapshot.problem.map(GateFailure.config)
        if snapshot.blockedParsed.contains(where: { $0.compare(to: version) == 0 }) {
            self.init(.mandatory, .blocked, text, failure, snapshot: snapshot)
            return
        }
        let decided = withExtendedLifetime(snapshot) {
            Gate.decide(current: version, minRequired: snapshot.minRequiredVersion, latest: snapshot.latestVersion)
        }
        switch decided {
        case .mandatory:
            let unmet = snapshot.minRequires.clauses.isEmpty ? nil : snapshot.minRequires.firstUnmet(facts())
            if let effectiveAt = snapshot.minEffectiveAt, now() < effectiveAt {
                self.init(.optional, .gracePeriod, text, failure, snapshot: snapshot, requiredFrom: effectiveAt,
                          unmet: unmet)
            } else {
                self.init(.mandatory, .belowMinimum, text, failure, snapshot: snapshot, unmet: unmet)
            }
        case .optional:
            if !snapshot.latestRequires.clauses.isEmpty, let missing = snapshot.latestRequires.firstUnmet(facts()) {
                self.init(.upToDate, .requirementsUnmet, text, failure, snapshot: snapshot, unmet: missing)
                return
            }
            let percent = snapshot.rolloutPercent
            guard percent < 100, let latest = snapshot.latest?.string else {
                self.init(.optional, .belowLatest, text, failure, snapshot: snapshot)
                return
            }
            let bucket = rolloutBucket(latest)
            let inside = bucket.map { $0 < percent } ?? false
            self.init(inside ? .optional : .upToDate, inside ? .belowLatest : .outsideRollout, text, failure,
                      snapshot: snapshot, rolloutPercent: percent, rolloutBucket: bucket)
        case .upToDate:
            self.init(.upToDate, .upToDate, text, failure, snapshot: snapshot)
        }
    }

    private init(_ status: GateStatus, _ rule: GateRule, _ current: VersionText?, _ failure: GateFailure?,
                 snapshot: GateSnapshot?, requiredFrom: Int64? = nil, rolloutPercent: Int? = nil,
                 rolloutBucket: Int? = nil, unmet: Requirements.Unmet? = nil, channel: ChannelAnswer? = nil,
                 policyFile: String? = nil) {
        (self.status, self.rule, self.current, self.failure) = (status, rule, current, failure)
        (self.snapshot, self.requiredFrom, self.rolloutPercent, self.rolloutBucket, self.unmet) =
            (snapshot, requiredFrom, rolloutPercent, rolloutBucket, unmet)
        (self.channel, self.policyFile) = (channel, policyFile)
    }

    /// This decision under an administrator's `mandatory: warn` (from
    /// `file`): OPTIONAL when it blocks below the minimum; nil when it does
    /// not block, or blocks a version the kill switch names, or a minimum
    /// the operator made strict: those stand.
    package func accepted(byPolicy file: String) -> Decision? {
        guard case .mandatory = status, case .belowMinimum = rule, let snapshot, !snapshot.strictMinimum else { return nil }
        return Decision(.optional, .policy, current, failure, snapshot: snapshot, unmet: unmet, channel: channel,
                        policyFile: file)
    }

    /// Whether this decision asks the user's channel before it blocks: below
    /// the minimum in effect, not a blocked version (the kill switch is
    /// never softened), and the operator did not make the minimum strict.
    package var asksChannel: Bool {
        guard case .belowMinimum = rule, let snapshot else { return false }
        return !snapshot.strictMinimum
    }

    /// This decision once the user's channel answered: OPTIONAL
    /// (`channelBehind`) when the channel is known to serve less than the
    /// minimum, or only a blocked version; else as it was, the answer kept
    /// for every door to tell. An answer without a version leaves the
    /// operator's word standing.
    package func judged(by answer: ChannelAnswer) -> Decision {
        guard asksChannel, let snapshot, let minimum = snapshot.minRequiredVersion else { return self }
        let behind = answer.version.flatMap { served in
            withVersion(served) { version in
                version.map { version in
                    withExtendedLifetime(snapshot) {
                        version.compare(to: minimum) < 0 || snapshot.blockedParsed.contains { $0.compare(to: version) == 0 }
                    }
                }
            }
        } ?? false
        return Decision(behind ? .optional : status, behind ? .channelBehind : rule, current, failure,
                        snapshot: snapshot, unmet: unmet, channel: answer)
    }

    /// UP_TO_DATE because nothing could decide: `failure` says why.
    package init(failOpen failure: GateFailure, current: String? = nil) {
        self.init(.upToDate, .failOpen, current.map(VersionText.init), failure, snapshot: nil)
    }

    /// The unmet clause and this system's value, e.g. `glibc>=2.38 (glibc 2.36)`.
    private var unmetText: String {
        guard let unmet else { return "" }
        return "\(unmet.clause.text) (\(unmet.clause.fact.rawValue) \(unmet.actual))"
    }

    /// What the channel said, after the minimum.
    private func channelText(_ answer: ChannelAnswer) -> String {
        if let served = answer.version {
            let blocked = withVersion(served) { version in
                version.map { version in snapshot?.blockedParsed.contains { $0.compare(to: version) == 0 } ?? false } ?? false
            }
            return "; \(answer.name) serves \(served)" + (blocked ? ", a blocked version" : "")
        }
        return "; \(answer.name) could not be asked (\(answer.problem ?? "no answer")), so the minimum stands"
    }

    private var unsupported: String { unmet == nil ? "" : "; this system cannot run it: it does not meet \(unmetText)" }

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
            return "\(current) is below \(minimum)" + unsupported + (channel.map(channelText) ?? "")
        case .channelBehind:
            return "\(current) is below \(minimum)" + (channel.map(channelText) ?? "")
                + ": not yet available for this system, so this version may be used until it is"
        case .policy:
            return "\(current) is below \(minimum)" + unsupported + (channel.map(channelText) ?? "")
                + "; the administrator's policy (\(policyFile ?? "")) accepts it: mandatory warn"
        case .gracePeriod:
            return "\(current) is below \(minimum), required from \(RFC3339.text(requiredFrom ?? 0))" + unsupported
        case .requirementsUnmet:
            return "\(current) is below \(latest), but this system does not meet its requirement \(unmetText)"
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
