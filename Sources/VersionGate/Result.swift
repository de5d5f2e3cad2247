import VersionGateC
import VersionGateCore
import VersionGateSystem

private func result(_ pointer: OpaquePointer?) -> GateResult? {
    pointer.map { Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

@_cdecl("vg_result_status")
public func vg_result_status(_ r: OpaquePointer?) -> vg_status {
    result(r).map { cStatus($0.status) } ?? VG_STATUS_UP_TO_DATE
}

@_cdecl("vg_result_should_prompt")
public func vg_result_should_prompt(_ r: OpaquePointer?) -> Int32 {
    result(r)?.shouldPrompt == true ? 1 : 0
}

@_cdecl("vg_result_title")
public func vg_result_title(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.title?.cString }

@_cdecl("vg_result_message")
public func vg_result_message(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.message?.cString }

@_cdecl("vg_result_release_notes")
public func vg_result_release_notes(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.releaseNotes?.cString }

@_cdecl("vg_result_action_label")
public func vg_result_action_label(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.actionLabel?.cString }

@_cdecl("vg_result_dismiss_label")
public func vg_result_dismiss_label(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.dismissLabel?.cString }

@_cdecl("vg_result_skip_label")
public func vg_result_skip_label(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.skipLabel?.cString }

@_cdecl("vg_result_store_url")
public func vg_result_store_url(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.storeURL?.cString }

@_cdecl("vg_result_error")
public func vg_result_error(_ r: OpaquePointer?) -> Int32 { result(r)?.errorCode ?? VG_EINVAL.rawValue }

@_cdecl("vg_result_error_message")
public func vg_result_error_message(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let r = result(r) else { return staticCString("result is NULL") }
    return r.errorMessage?.cString
}

@_cdecl("vg_result_min_required")
public func vg_result_min_required(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.minRequired?.cString }

@_cdecl("vg_result_latest")
public func vg_result_latest(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.latest?.cString }

@_cdecl("vg_result_json")
public func vg_result_json(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.jsonText.cString }

@_cdecl("vg_result_rule")
public func vg_result_rule(_ r: OpaquePointer?) -> UnsafePointer<CChar> {
    let name = result(r)?.rule.name ?? GateRule.failOpen.name
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("vg_result_get")
public func vg_result_get(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let r = result(r), let key, let name = String(validatingCString: key),
          let field = ResultFields.byKey[name] else { return nil }
    guard let text = field.value(r).text else { return nil }
    return r.text(for: name) { text }.cString
}

@_cdecl("vg_result_free")
public func vg_result_free(_ r: OpaquePointer?) {
    guard let r else { return }
    Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer(r)).release()
}

extension GateResult {
    /// What vg_result_error returns.
    var errorCode: Int32 { VersionGate.errorCode(failure) }

    /// The result's JSON, made once on first use and kept by the result.
    var jsonText: CText { text(for: GateResult.jsonKey) { ResultFields.json(self) } }
}
