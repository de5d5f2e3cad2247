/// Why a call failed or a result fails open: what kind of failure, and a
/// one-line message naming what went wrong. The C ABI maps each kind to its
/// `vg_error` code, in one place (Sources/VersionGate/Errors.swift).
package struct GateFailure: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable, CaseIterable {
        case invalidArgument, invalidVersion, config, outOfMemory, internalError
        case network, timeout, tooLarge, tls, policy, forked, http, backoff, openFailed
        /// A document's detached signature is missing, malformed, by an
        /// untrusted key or does not match (option `trusted_keys`).
        case signature
        /// The installed version could not be read from where option
        /// `installed_version_from` points (an AppStream file, a version file).
        case installedVersion
        /// Updating in place, or restarting into the update, failed or is
        /// not possible here (docs/design.md, "Updating in place").
        case update
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package static func invalidArgument(_ message: String) -> GateFailure { GateFailure(.invalidArgument, message) }
    package static func invalidVersion(_ message: String) -> GateFailure { GateFailure(.invalidVersion, message) }
    package static func config(_ message: String) -> GateFailure { GateFailure(.config, message) }
    package static func installedVersion(_ message: String) -> GateFailure { GateFailure(.installedVersion, message) }
}
