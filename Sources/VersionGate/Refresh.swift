import VersionGateC
import VersionGateCore
import VersionGateSystem

@_cdecl("vg_client_refresh")
public func vg_client_refresh(_ client: OpaquePointer?, _ current: UnsafePointer<CChar>?) -> Int32 {
    withClient(client, lastError: .untouched) { handle throws(GateFailure) in
        let logging = handle.callLog()
        let failure = handle.client.refresh(current: current.map { versionBytes(cString: $0) }, log: logging?.1)
        if let failure { logging?.1.add(.warning, "refresh: \(failure.message)") }
        logging?.0.deliver(logging?.1)
        if let failure { throw failure }
    }
}
