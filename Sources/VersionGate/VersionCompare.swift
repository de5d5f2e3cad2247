import VersionGateC
import VersionGateCore

@_cdecl("vg_version_compare")
public func vg_version_compare(_ out: UnsafeMutablePointer<Int32>?, _ a: UnsafePointer<CChar>?,
                               _ b: UnsafePointer<CChar>?) -> Int32 {
    guard let out, let a, let b else { return VG_EINVAL.rawValue }
    guard let order = Version.compare(cString: a, b) else { return VG_EVERSION.rawValue }
    out.pointee = Int32(order)
    return VG_OK.rawValue
}

@_cdecl("vg_decide")
public func vg_decide(_ current: UnsafePointer<CChar>?, _ minRequired: UnsafePointer<CChar>?,
                      _ latest: UnsafePointer<CChar>?) -> vg_status {
    cStatus(Gate.decide(current: current, minRequired: minRequired, latest: latest))
}

func cStatus(_ status: GateStatus) -> vg_status {
    switch status {
    case .upToDate: return VG_STATUS_UP_TO_DATE
    case .optional: return VG_STATUS_OPTIONAL
    case .mandatory: return VG_STATUS_MANDATORY
    }
}
