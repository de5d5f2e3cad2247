import VersionGateC
import VersionGateCore

/// The one place failure kinds become `vg_error` codes, with each code's
/// static text and name (header: append-only).
private let errorTable: [(code: vg_error, kind: GateFailure.Kind?, name: StaticString, text: StaticString)] = [
    // BEGIN GENERATED errors (scripts/generate)
    (VG_OK, nil, "VG_OK", "success"),
    (VG_EINVAL, .invalidArgument, "VG_EINVAL", "invalid argument"),
    (VG_EVERSION, .invalidVersion, "VG_EVERSION", "invalid version string"),
    (VG_ECONFIG, .config, "VG_ECONFIG", "gate document missing, unreadable or invalid"),
    (VG_ENOMEM, .outOfMemory, "VG_ENOMEM", "out of memory"),
    (VG_EINTERNAL, .internalError, "VG_EINTERNAL", "internal error"),
    (VG_ENETWORK, .network, "VG_ENETWORK", "network error"),
    (VG_ETIMEOUT, .timeout, "VG_ETIMEOUT", "deadline passed"),
    (VG_ETOOLARGE, .tooLarge, "VG_ETOOLARGE", "response over its size limit"),
    (VG_ETLS, .tls, "VG_ETLS", "TLS handshake or certificate verification failed"),
    (VG_EPOLICY, .policy, "VG_EPOLICY", "URL or redirect refused by policy"),
    (VG_EFORK, .forked, "VG_EFORK", "refused in a fork() child"),
    (VG_EHTTP, .http, "VG_EHTTP", "the server answered with an error"),
    (VG_EBACKOFF, .backoff, "VG_EBACKOFF", "backing off after the server throttled requests"),
    (VG_EOPEN, .openFailed, "VG_EOPEN", "no handler could open the URL"),
    (VG_ESIGNATURE, .signature, "VG_ESIGNATURE", "document signature missing, malformed, untrusted or not matching"),
    (VG_EINSTALLED, .installedVersion, "VG_EINSTALLED", "the installed version could not be read"),
    (VG_EUPDATE, .update, "VG_EUPDATE", "updating in place failed or is not possible here"),
    // END GENERATED errors
]

extension GateFailure.Kind {
    /// Every kind has a row, so the fallback is never taken.
    var code: Int32 { (errorTable.first { $0.kind == self }?.code ?? VG_EINTERNAL).rawValue }
}

extension GateFailure {
    var code: Int32 { kind.code }
}

/// VG_OK for nil.
func errorCode(_ failure: GateFailure?) -> Int32 { failure?.code ?? VG_OK.rawValue }

func errorName(_ code: Int32) -> String {
    errorTable.first { $0.code.rawValue == code }.map { "\($0.name)" } ?? "VG_EUNKNOWN"
}

@_cdecl("vg_strerror")
public func vg_strerror(_ code: Int32) -> UnsafePointer<CChar> {
    guard let entry = errorTable.first(where: { $0.code.rawValue == code }) else {
        return staticCString("unknown error")
    }
    return staticCString(entry.text)
}
