/// The decision for one version against one snapshot (SPEC §4), with the
/// reason it fails open if it does. Pure.
struct Verdict: Sendable {
    let status: GateStatus
    /// The trimmed current version, nil when it is invalid.
    let currentText: String?
    let failure: GateFailure?

    init(current: UnsafeBufferPointer<UInt8>, snapshot: GateSnapshot) {
        guard let version = Version(bytes: current) else {
            status = .upToDate
            currentText = nil
            failure = .invalidVersion("current version \"\(printable(current))\" is not a valid version")
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

/// At most 64 bytes of arbitrary input, made safe to quote in a one-line
/// message: anything but printable ASCII (controls, escapes, bidi, line
/// separators) becomes "?", so input cannot forge log lines.
func printable(_ bytes: some Collection<UInt8>) -> String {
    let head = bytes.prefix(64).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }
    return String(decoding: head, as: UTF8.self) + (bytes.count > 64 ? "…" : "")
}
