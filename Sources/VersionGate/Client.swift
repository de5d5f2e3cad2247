import Synchronization
import VersionGateC
import VersionGateCore
import VersionGatePlatform
import VersionGateSystem

/// What a `vg_client *` points to: the client plus the C-facing error text.
final class ClientHandle: Sendable {
    let client = GateClient()
    /// Why the last export that tells it failed (withClient, LastError.told).
    let lastError = Mutex<CText?>(nil)
    /// vg_client_set_log_callback's; a call uses the one set when it began.
    let logTarget = Mutex<LogTarget?>(nil)
    /// Whether `logTarget` is set: one load on the warm path, not a lock.
    let logs = Atomic<Bool>(false)
    /// vg_client_set_event_callback's; a check uses the one set when it began.
    let eventTarget = Mutex<EventTarget?>(nil)
    /// Whether `eventTarget` is set: one load on the warm path, not a lock.
    let listens = Atomic<Bool>(false)
    /// What update_confirmed needs, read once per source and platform.
    let confirmations = UpdateConfirmations()
}

func clientHandle(_ pointer: OpaquePointer?) -> ClientHandle? {
    pointer.map { Unmanaged<ClientHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

@_cdecl("vg_client_new")
public func vg_client_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = OpaquePointer(Unmanaged.passRetained(ClientHandle()).toOpaque())
    return VG_OK.rawValue
}

@_cdecl("vg_client_free")
public func vg_client_free(_ client: OpaquePointer?) {
    guard let client else { return }
    Unmanaged<ClientHandle>.fromOpaque(UnsafeRawPointer(client)).release()
}

@_cdecl("vg_client_set")
public func vg_client_set(_ client: OpaquePointer?, _ key: UnsafePointer<CChar>?,
                          _ value: UnsafePointer<CChar>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        guard let key, let keyText = String(validatingCString: key) else {
            throw .invalidArgument(key == nil ? "option key is NULL" : "option key is not valid UTF-8")
        }
        if let value, String(validatingCString: value) == nil {
            throw .invalidArgument("value for \"\(keyText)\" is not valid UTF-8")
        }
        try handle.client.set(keyText, value.flatMap { String(validatingCString: $0) })
    }
}

@_cdecl("vg_client_skip_version")
public func vg_client_skip_version(_ client: OpaquePointer?, _ version: UnsafePointer<CChar>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        guard let version, let text = String(validatingCString: version) else {
            throw .invalidArgument(version == nil ? "version is NULL" : "version is not valid UTF-8")
        }
        try handle.client.skipVersion(text)
    }
}

@_cdecl("vg_client_last_error")
public func vg_client_last_error(_ client: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let handle = clientHandle(client) else { return staticCString("client is NULL") }
    if ForkGuard.refusal != nil { return staticCString("this process is a fork() child: the client cannot be used") }
    return handle.lastError.withLock { $0?.cString }
}

@_cdecl("vg_client_get")
public func vg_client_get(_ client: OpaquePointer?, _ key: UnsafePointer<CChar>?,
                          _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    // The header: vg_client_last_error does not change.
    return withClient(client, lastError: .untouched) { handle throws(GateFailure) in
        guard let key, let keyText = String(validatingCString: key) else {
            throw .invalidArgument("option key is NULL or not valid UTF-8")
        }
        guard let value = try handle.client.option(keyText) else { return }
        out.pointee = mallocCopy(value)
        if out.pointee == nil { throw GateFailure(.outOfMemory, "no memory for the option's value") }
    }
}

@_cdecl("vg_client_check")
public func vg_client_check(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ client: OpaquePointer?,
                            _ current: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return deliver(GateResult(failOpen: forked), to: out) }
    let handle = clientHandle(client)
    let logging = handle?.callLog()
    // With no event callback, nothing event-related is built or read.
    let events = handle?.listens.load(ordering: .acquiring) == true ? handle?.eventTarget.withLock { $0 } : nil
    let code = deliver(check(handle?.client, current, log: logging?.1), to: out)
    logging?.0.deliver(logging?.1)
    // The result is read back from `out`, so the warm path hands it over without keeping it.
    if let events, let handle, let delivered = out.pointee {
        let result = Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer(delivered)).takeUnretainedValue()
        events.deliver(GateEvents.check(result, decided: ResultFields.members(ResultFields.decidedKeys, of: result),
                                        client: handle.client, confirmations: handle.confirmations))
    }
    return code
}

@_cdecl("vg_check")
public func vg_check(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ source: UnsafePointer<CChar>?,
                     _ current: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return deliver(GateResult(failOpen: forked), to: out) }
    guard let source, let sourceText = String(validatingCString: source) else {
        return deliver(GateResult(failOpen: .invalidArgument("source is NULL or not valid UTF-8")), to: out)
    }
    switch SharedClients.client(for: sourceText) {
    case .success(let client): return deliver(check(client, current), to: out)
    case .failure(let failure): return deliver(GateResult(failOpen: failure), to: out)
    }
}

private func check(_ client: GateClient?, _ current: UnsafePointer<CChar>?, log: CallLog? = nil) -> GateResult {
    guard let client else { return GateResult(failOpen: .invalidArgument("client is NULL")) }
    // NULL: the version installed on this system (option installed_version_from).
    guard let current else { return client.checkInstalled(log: log) }
    return client.check(current: versionBytes(cString: current), log: log)
}

/// `consuming`, and the code read first: the caller's reference becomes the
/// host's, with no retain and release around it.
private func deliver(_ result: consuming GateResult, to out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
    let code = errorCode(result.failure)
    out.pointee = OpaquePointer(Unmanaged.passRetained(result).toOpaque())
    return code
}
