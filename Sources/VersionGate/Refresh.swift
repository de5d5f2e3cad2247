import VersionGateC
import VersionGateCore
import VersionGateSystem

@_cdecl("vg_client_refresh")
public func vg_client_refresh(_ client: OpaquePointer?, _ current: UnsafePointer<CChar>?) -> Int32 {
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    let logging = handle.callLog()
    let failure = handle.client.refresh(current: current.map { versionBytes(cString: $0) }, log: logging?.1)
    if let failure { logging?.1.add(.warning, "refresh: \(failure.message)") }
    logging?.0.deliver(logging?.1)
    return errorCode(failure)
}
