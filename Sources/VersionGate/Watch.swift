import VersionGateC
import VersionGateCore
import VersionGateSystem

@_cdecl("vg_client_watch")
public func vg_client_watch(_ client: OpaquePointer?, _ descriptor: UnsafeMutablePointer<Int32>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        guard let descriptor else { throw .invalidArgument("fd is NULL") }
        descriptor.pointee = -1
        descriptor.pointee = try handle.client.watch().get()
    }
}

@_cdecl("vg_client_unwatch")
public func vg_client_unwatch(_ client: OpaquePointer?) -> Int32 {
    withClient(client) { handle in handle.client.unwatch() }
}
