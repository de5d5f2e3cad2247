import VersionGateC

/// Why a call failed or a result fails open: a vg_error code and a message
/// naming what went wrong.
struct GateFailure: Error, Sendable, Equatable {
    let code: Int32
    let message: String

    static func invalidArgument(_ message: String) -> GateFailure {
        GateFailure(code: VG_EINVAL.rawValue, message: message)
    }
    static func invalidVersion(_ message: String) -> GateFailure {
        GateFailure(code: VG_EVERSION.rawValue, message: message)
    }
    static func config(_ message: String) -> GateFailure {
        GateFailure(code: VG_ECONFIG.rawValue, message: message)
    }
}
