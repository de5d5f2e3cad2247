/// Why a call failed or a result fails open: what kind of failure, and a
/// one-line message naming what went wrong. The C ABI maps each kind to its
/// `vg_error` code, in one place (Sources/VersionGate/Errors.swift).
package struct GateFailure: Error, Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        // BEGIN GENERATED errors (scripts/generate)
        /// VG_EINVAL: bad argument: NULL, unknown option key, bad value
        case invalidArgument = "EINVAL"
        /// VG_EVERSION: a version string is not valid (docs/design.md, "Versions")
        case invalidVersion = "EVERSION"
        /// VG_ECONFIG: gate document missing, unreadable, malformed or too large
        case config = "ECONFIG"
        /// VG_ENOMEM: out of memory
        case outOfMemory = "ENOMEM"
        /// VG_EINTERNAL: a bug in VersionGate; please report it
        case internalError = "EINTERNAL"
        /// VG_ENETWORK: no HTTP response: DNS, connect, reset, not HTTP, no libcurl
        case network = "ENETWORK"
        /// VG_ETIMEOUT: the request's deadline ("timeout_ms") passed
        case timeout = "ETIMEOUT"
        /// VG_ETOOLARGE: a response (decoded) over its byte cap
        case tooLarge = "ETOOLARGE"
        /// VG_ETLS: TLS handshake or certificate verification failed
        case tls = "ETLS"
        /// VG_EPOLICY: a URL or redirect refused by the URL rules
        case policy = "EPOLICY"
        /// VG_EFORK: refused in a fork() child (see "Fork" above)
        case forked = "EFORK"
        /// VG_EHTTP: the server answered with an error (HTTP status or error body)
        case http = "EHTTP"
        /// VG_EBACKOFF: no request made: backing off after the server throttled us
        case backoff = "EBACKOFF"
        /// VG_EOPEN: no handler could open the URL (xdg-open failed)
        case openFailed = "EOPEN"
        /// VG_ESIGNATURE: "trusted_keys" set: a document's minisign signature is missing,
        /// malformed, by an untrusted key, not matching, or older (rollback)
        case signature = "ESIGNATURE"
        /// VG_EINSTALLED: the installed version could not be read ("installed_version_from"):
        /// no metainfo, unreadable, not well-formed XML, or no stable release
        case installedVersion = "EINSTALLED"
        /// VG_EUPDATE: since 1.2: updating in place, or restarting into the update, failed
        /// or is not possible here (vg_client_update, vg_client_restart)
        case update = "EUPDATE"
        // END GENERATED errors
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
