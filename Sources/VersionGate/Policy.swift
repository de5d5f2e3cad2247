import VersionGateC
import VersionGateCore
import VersionGateSystem

/// The administrator's policy as root's files say it now (docs/design.md,
/// "The administrator's policy"): what `versiongate policy` prints.
@_cdecl("vg_policy_report")
public func vg_policy_report(_ effective: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ problems: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    guard let effective, let problems else { return VG_EINVAL.rawValue }
    (effective.pointee, problems.pointee) = (nil, nil)
    let reading = System.live.policyFiles()
    let lines = reading.policy.lines.map { "\($0.key) = \($0.value) (\($0.file))\n" }
    guard let made = mallocCopy(lines.joined()), let told = mallocCopy(reading.problems.map { $0 + "\n" }.joined()) else {
        return VG_ENOMEM.rawValue
    }
    (effective.pointee, problems.pointee) = (made, told)
    return VG_OK.rawValue
}
