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
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    let logging = handle.callLog()
    out.pointee = mallocCopy(handle.client.storeResolution(log: logging?.1).url)
    logging?.0.deliver(logging?.1)
    return VG_OK.rawValue
}

@_cdecl("vg_open_url")
public func vg_open_url(_ url: UnsafePointer<CChar>?) -> Int32 {
    guard let text = url.flatMap({ String(validatingCString: $0) }) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    return code(of: URLOpener.open(text))
}

/// vg_open_url under the client's URL policy (allowed_url_schemes,
/// allowed_url_hosts): the store URL its results carry opens as they allow.
@_cdecl("vg_client_open_url")
public func vg_client_open_url(_ client: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    guard let text = url.flatMap({ String(validatingCString: $0) }) else {
        handle.lastError.withLock { $0 = CText("url is NULL or not valid UTF-8") }
        return VG_EINVAL.rawValue
    }
    let opened = URLOpener.open(text, policy: handle.client.urlPolicy)
    let code = code(of: opened)
    handle.lastError.withLock { $0 = code == VG_OK.rawValue ? nil : CText(opened.message) }
    return code
}

private func code(of opened: URLOpenResult) -> Int32 {
    switch opened.outcome {
    case .opened, .launched: VG_OK.rawValue
    case .refused: VG_EPOLICY.rawValue
    case .failed: VG_EOPEN.rawValue
    }
}
