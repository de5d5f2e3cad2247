import VersionGateC
import VersionGateCore
import VersionGateSystem

/// Whether an export tells vg_client_last_error why it failed. The header
/// names those that do; the others leave it alone, so a check or a read
/// on another thread never replaces the text a configuring thread reads.
enum LastError {
    case told, untouched
}

/// What every export on a client does around its own work, in this order:
/// a NULL client is VG_EINVAL and a fork() child VG_EFORK (the last error
/// untouched: there is none to write, or the child may not touch the
/// client's state); then `body`, whose failure becomes its code (Errors.swift)
/// and, when `lastError` is `.told`, the last error's text; success clears it.
func withClient(_ client: OpaquePointer?, lastError: LastError = .told,
                _ body: (ClientHandle) throws(GateFailure) -> Void) -> Int32 {
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    let failure: GateFailure?
    do throws(GateFailure) {
        try body(handle)
        failure = nil
    } catch {
        failure = error
    }
    if case .told = lastError { handle.lastError.withLock { $0 = failure.map { CText($0.message) } } }
    return errorCode(failure)
}
