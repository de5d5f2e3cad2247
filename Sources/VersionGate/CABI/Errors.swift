import VersionGateC

/// Static text and name for each vg_error code (header: append-only).
private let errorTable: [(code: Int32, name: StaticString, text: StaticString)] = [
    (VG_OK.rawValue, "VG_OK", "success"),
    (VG_EINVAL.rawValue, "VG_EINVAL", "invalid argument"),
    (VG_EVERSION.rawValue, "VG_EVERSION", "invalid version string"),
    (VG_ECONFIG.rawValue, "VG_ECONFIG", "gate document missing, unreadable or invalid"),
    (VG_ENOMEM.rawValue, "VG_ENOMEM", "out of memory"),
    (VG_EINTERNAL.rawValue, "VG_EINTERNAL", "internal error"),
    (VG_ENETWORK.rawValue, "VG_ENETWORK", "network error"),
    (VG_ETIMEOUT.rawValue, "VG_ETIMEOUT", "deadline passed"),
    (VG_ETOOLARGE.rawValue, "VG_ETOOLARGE", "response over its size limit"),
    (VG_ETLS.rawValue, "VG_ETLS", "TLS handshake or certificate verification failed"),
    (VG_EPOLICY.rawValue, "VG_EPOLICY", "URL or redirect refused by policy"),
    (VG_EFORK.rawValue, "VG_EFORK", "network use refused in a fork() child"),
    (VG_EHTTP.rawValue, "VG_EHTTP", "the server answered with an error"),
    (VG_EBACKOFF.rawValue, "VG_EBACKOFF", "backing off after the server throttled requests"),
    (VG_EOPEN.rawValue, "VG_EOPEN", "no handler could open the URL"),
]

func errorName(_ code: Int32) -> String {
    errorTable.first { $0.code == code }.map { "\($0.name)" } ?? "VG_EUNKNOWN"
}

@_cdecl("vg_strerror")
public func vg_strerror(_ code: Int32) -> UnsafePointer<CChar> {
    guard let entry = errorTable.first(where: { $0.code == code }) else {
        return staticCString("unknown error")
    }
    return staticCString(entry.text)
}
