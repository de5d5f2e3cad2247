/// The decision for one version against one snapshot (SPEC §4), with the
/// reason it fails open if it does. Pure.
package struct Verdict: Sendable {
    package let status: GateStatus
    /// The trimmed current version, nil when it is invalid.
    package let currentText: String?
    package let failure: GateFailure?

    package init(current: UnsafeBufferPointer<UInt8>, snapshot: GateSnapshot) {
        guard let version = Version(bytes: current) else {
            status = .upToDate
            currentText = nil
            failure = .invalidVersion("current version \"\(OneLine.text(current))\" is not a valid version")
            return
        }
        status = withExtendedLifetime(snapshot) {
            Gate.decide(current: version,
                        minRequired: snapshot.minRequired.flatMap { Version(bytes: $0.bytes) },
                        latest: snapshot.latest.flatMap { Version(bytes: $0.bytes) })
        }
        currentText = version.trimmedText
        failure = snapshot.problem.map(GateFailure.config)
    }
}
