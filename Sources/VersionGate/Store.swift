import VersionGateC
import VersionGateCore
import VersionGateSystem

@_cdecl("vg_store_url")
public func vg_store_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: UnsafePointer<CChar>?,
                         _ appID: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    if let forked = ForkGuard.refusal { return forked.code }
    guard let storeText = store.flatMap({ String(validatingCString: $0) }), let kind = StoreKind(rawValue: storeText),
          let appText = appID.flatMap({ String(validatingCString: $0) }) else { return VG_EINVAL.rawValue }
    out.pointee = mallocCopy(StoreLocator.url(store: kind, appID: appText))
    return VG_OK.rawValue
}

@_cdecl("vg_client_store_url")
public func vg_client_store_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ client: OpaquePointer?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    return withClient(client, lastError: .untouched) { handle in
        let logging = handle.callLog()
        out.pointee = mallocCopy(handle.client.storeResolution(log: logging?.1).url)
        logging?.0.deliver(logging?.1)
    }
}

@_cdecl("vg_open_url")
public func vg_open_url(_ url: UnsafePointer<CChar>?) -> Int32 {
    guard let text = url.flatMap({ String(validatingCString: $0) }) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    return errorCode(failure(of: URLOpener.open(text)))
}

/// vg_open_url under the client's URL policy (allowed_url_schemes,
/// allowed_url_hosts): the store URL its results carry opens as they allow.
@_cdecl("vg_client_open_url")
public func vg_client_open_url(_ client: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        guard let text = url.flatMap({ String(validatingCString: $0) }) else {
            throw .invalidArgument("url is NULL or not valid UTF-8")
        }
        if let failure = failure(of: URLOpener.open(text, policy: handle.client.urlPolicy)) { throw failure }
    }
}

/// nil when it opened; else why, VG_EPOLICY's or VG_EOPEN's.
private func failure(of opened: URLOpenResult) -> GateFailure? {
    switch opened.outcome {
    case .opened, .launched: nil
    case .refused: GateFailure(.policy, opened.message)
    case .failed: GateFailure(.openFailed, opened.message)
    }
}
