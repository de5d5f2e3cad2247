import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import PortalShim
#if canImport(Glibc)
import Glibc
#endif

/// Updating in place, the helper's side (docs/design.md, "Updating in
/// place"): the portal (a Flatpak) or PackageKit (a distribution package)
/// through GIO (PortalShim), in the helper's own process. Progress goes to
/// the host as it comes, one record each.
package enum UpdateService {
    /// Each step to the host at once (`interim`), then how it ended.
    package static func update(_ kind: HelperRequest.Update.Kind, maxSeconds: Int,
                               interim: @escaping (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        var outcome = vgp_outcome()
        var send = interim
        // The callback travels in the context pointer; nonzero: the host stopped listening.
        let progress: vgp_progress_fn = { op, count, percent, context in
            guard let send = context?.assumingMemoryBound(to: ((HelperAnswer.Interim) -> Bool).self) else { return 0 }
            return send.pointee(.progress(UpdateProgress(op: Int(op), count: Int(count), percent: Int(percent)))) ? 0 : 1
        }
        withUnsafeMutablePointer(to: &send) { context in
            switch kind {
            case .package(let name): vgp_package_update(&outcome, name, UInt32(clamping: maxSeconds), progress, context)
            default: vgp_update(&outcome, UInt32(clamping: maxSeconds), progress, context)
            }
        }
        return .updated(UpdateOutcome(rawValue: outcome.kind) ?? .failed, message: text(&outcome.message))
    }

    /// The newest installed version started through the portal with the
    /// host's descriptors 0-2 (here 3-5), then, when asked, waited for.
    package static func restart(_ request: HelperRequest.Restart) -> HelperAnswer {
        var status: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let argv = CStringArray(request.arguments)
        let descriptors: [Int32] = [3, 4, 5]
        let started = withExtendedLifetime(argv) {
            withUnsafeMutablePointer(to: &status) { statusPointer in
                vgp_spawn_latest(request.directory, argv.vector, descriptors, request.wait ? statusPointer : nil,
                                 &message, message.count)
            }
        }
        guard started == 0 else {
            return .failed(GateFailure(.update, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                                       as: UTF8.self)))
        }
        return .restarted(status: request.wait ? status : nil)
    }

    private static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
