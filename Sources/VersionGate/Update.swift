import VersionGateC
import VersionGateCore
import VersionGateSystem

/// Updating in place (docs/design.md, "Updating in place"): the client
/// decides and tells (GateClient.update); here the host's callbacks are
/// handed to it, on the calling thread.
@_cdecl("vg_client_update")
public func vg_client_update(_ out: UnsafeMutablePointer<vg_update_outcome>?, _ client: OpaquePointer?,
                             _ result: OpaquePointer?, _ progress: vg_update_progress_fn?,
                             _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = vg_update_outcome(rawValue: UInt32(UpdateOutcome.failed.rawValue))
    return withClient(client) { handle throws(GateFailure) in
        guard let result else { throw .invalidArgument("result is NULL") }
        let gateResult = Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer(result)).takeUnretainedValue()
        let target = handle.eventTarget.withLock { $0 }
        let (outcome, failure) = handle.client.update(gateResult, tell: target.map { target in { target.deliver([$0]) } }) {
            step in
            guard let progress else { return true }
            return progress(Int32(clamping: step.op), Int32(clamping: step.count), Int32(clamping: step.percent),
                            userdata) == 0
        }
        out.pointee = vg_update_outcome(rawValue: UInt32(outcome.rawValue))
        if let failure { throw failure }
    }
}

@_cdecl("vg_client_restart")
public func vg_client_restart(_ client: OpaquePointer?, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
                              _ cwd: UnsafePointer<CChar>?, _ exitStatus: UnsafeMutablePointer<Int32>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        var arguments: [String] = []
        if let argv {
            var index = 0
            while let word = argv[index] {
                guard let text = String(validatingCString: word) else {
                    throw .invalidArgument("argv[\(index)] is not valid UTF-8")
                }
                arguments.append(text)
                index += 1
            }
        } else if let own = ProcessFacts.ownArguments {
            arguments = own
        }
        guard !arguments.isEmpty else { throw .invalidArgument("no command to restart: argv is empty") }
        let directory: String
        if let cwd {
            guard let text = String(validatingCString: cwd) else { throw .invalidArgument("cwd is not valid UTF-8") }
            directory = text
        } else {
            directory = ProcessFacts.currentDirectory ?? "/"
        }
        let status = try handle.client.restart(arguments: arguments, directory: directory, wait: exitStatus != nil).get()
        if let status { exitStatus?.pointee = status }
    }
}
