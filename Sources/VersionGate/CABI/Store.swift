#if canImport(Glibc)
import Glibc
#endif
import VersionGateC

@_cdecl("vg_store_url")
public func vg_store_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: UnsafePointer<CChar>?,
                         _ appID: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    guard let storeText = store.flatMap({ String(validatingCString: $0) }), let kind = StoreKind(rawValue: storeText),
          let appText = appID.flatMap({ String(validatingCString: $0) }) else { return VG_EINVAL.rawValue }
    var options = ClientOptions()
    options.store = kind
    options.appID = appText
    let resolution = StoreLocator().resolve(options, nil, .current())
    out.pointee = resolution.url.flatMap { strdup($0) }
    return VG_OK.rawValue
}

@_cdecl("vg_client_store_url")
public func vg_client_store_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ client: OpaquePointer?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    out.pointee = handle.client.storeResolution(environment: .current()).url.flatMap { strdup($0) }
    return VG_OK.rawValue
}

@_cdecl("vg_open_url")
public func vg_open_url(_ url: UnsafePointer<CChar>?) -> Int32 {
    guard let text = url.flatMap({ String(validatingCString: $0) }) else { return VG_EINVAL.rawValue }
    let result = URLOpener.open(text, policy: .standard, webFallback: webPage(for: text), timeoutMs: 5000)
    switch result.outcome {
    case .opened, .launched: return VG_OK.rawValue
    case .refused: return VG_EPOLICY.rawValue
    case .failed: return VG_EOPEN.rawValue
    }
}

/// The https page of a store URL, for when no handler opens its scheme.
private func webPage(for url: String) -> String? {
    let forms: [(prefix: String, store: StoreKind)] = [("appstream:", .flathub), ("snap://", .snap), ("snap:", .snap)]
    guard let form = forms.first(where: { url.hasPrefix($0.prefix) }) else { return nil }
    let id = String(url.dropFirst(form.prefix.count))
    return try? form.store.links(appID: id).get().webFallback
}
