import VersionGateC
import VersionGateCore
import VersionGatePlatform
import VersionGateSystem

@_cdecl("vg_lint")
public func vg_lint(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ path: UnsafePointer<CChar>?,
                    _ platforms: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    guard let path, let pathText = String(validatingCString: path) else { return VG_EINVAL.rawValue }
    var names = ["linux"]
    if let platforms {
        guard let text = String(validatingCString: platforms) else { return VG_EINVAL.rawValue }
        if !text.isEmpty { names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }
    // Each name as the `platform` option takes it.
    for name in names {
        var options = ClientOptions()
        guard (try? options.set("platform", name)) != nil else { return VG_EINVAL.rawValue }
    }
    var problems: [String]
    let files = System.live.files
    do {
        let bytes = try files.read(pathText, maxBytes: GateDocument.maxBytes, trust: .document).bytes
        problems = GateLint.problems(bytes, platforms: names)
    } catch {
        problems = [error.message]
    }
    // The signature beside it, when there is one (as a launcher would look).
    let signaturePath = pathText + ".minisig"
    if files.identity(of: signaturePath) != nil {
        do {
            let bytes = try files.read(signaturePath, maxBytes: MinisignSignature.maxFileBytes, trust: .document).bytes
            problems += SignatureLint.problems(bytes, signatureName: signaturePath)
        } catch {
            problems.append(error.message)
        }
    }
    out.pointee = mallocCopy(problems.map { $0 + "\n" }.joined())
    guard out.pointee != nil else { return VG_ENOMEM.rawValue }
    return problems.isEmpty ? VG_OK.rawValue : VG_ECONFIG.rawValue
}
