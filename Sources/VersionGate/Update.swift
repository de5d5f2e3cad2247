import VersionGateC
import VersionGateCore
import VersionGateSystem

/// Updating in place (docs/design.md, "Updating in place"): this Flatpak,
/// AppImage or distribution package, updated by the helper, with the
/// host's progress callback and events on the calling thread.
@_cdecl("vg_client_update")
public func vg_client_update(_ out: UnsafeMutablePointer<vg_update_outcome>?, _ client: OpaquePointer?,
                             _ result: OpaquePointer?, _ progress: vg_update_progress_fn?,
                             _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = vg_update_outcome(rawValue: UInt32(UpdateOutcome.failed.rawValue))
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    guard let result else { return refuse(handle, .invalidArgument("result is NULL")) }
    let gateResult = Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer(result)).takeUnretainedValue()
    guard gateResult.status != .upToDate else {
        return refuse(handle, .invalidArgument("the result is UP_TO_DATE: there is nothing to update to"))
    }
    let target = handle.eventTarget.withLock { $0 }
    let latest: (String, JSONValue) = ("latest", EventJSON.text(gateResult.latest?.string))
    let settings = handle.client.updateSettings
    // docs/design.md, "The administrator's policy": nothing installed, not even asked for.
    if let refusal = settings.refusal {
        out.pointee = vg_update_outcome(rawValue: UInt32(UpdateOutcome.refused.rawValue))
        return refuse(handle, GateFailure(.update, refusal))
    }
    let found = InPlaceUpdate.kind(distroPackage: settings.distroPackage, program: settings.program,
                                   version: gateResult.current)
    let kind = try? found.get()
    let kindField: (String, JSONValue) = ("kind", .string(kind?.name ?? ""))
    // Where nothing can be updated in place nothing happens, so nothing is told.
    if kind != nil, let target {
        target.deliver([GateEvents.update(.updateStarted, gateResult, client: handle.client,
                                          [("status", .string(gateResult.status.name)), latest, kindField])])
    }
    let fromCommit = kind == .flatpak ? InPlaceUpdate.runningCommit : nil
    let report = InPlaceUpdate.run(found, limits: settings.limits, gitHubAPI: settings.gitHubAPI,
                                   trustedKeys: settings.trustedKeys) { step in
        guard let progress else { return true }
        return progress(Int32(clamping: step.op), Int32(clamping: step.count), Int32(clamping: step.percent), userdata) == 0
    }
    out.pointee = vg_update_outcome(rawValue: UInt32(report.outcome.rawValue))
    if kind != nil, let target {
        let event = report.outcome == .installed
            ? GateEvents.update(.updateInstalled, gateResult, client: handle.client,
                                [("from", EventJSON.text(gateResult.current)), ("to", EventJSON.text(gateResult.latest?.string)),
                                 ("from_commit", EventJSON.text(fromCommit)), kindField])
            : GateEvents.update(.updateFailed, gateResult, client: handle.client,
                                [("outcome", .string(report.outcome.name)), ("reason", .string(report.message)), latest,
                                 kindField])
        target.deliver([event])
    }
    // The remote serves nothing newer than this commit: the next check
    // lets this version run (docs/design.md, "Asking the channel").
    if report.outcome == .nothingNew, let fromCommit, let current = gateResult.current {
        handle.client.recordNothingNew(commit: fromCommit, version: current)
    }
    // PackageKit has nothing newer for the app's package: the same answer, from its channel.
    if report.outcome == .nothingNew, case .package(let name)? = kind, let current = gateResult.current {
        handle.client.recordPackageNothingNew(package: name, version: current)
    }
    guard report.outcome != .installed else {
        handle.lastError.withLock { $0 = nil }
        return VG_OK.rawValue
    }
    return refuse(handle, GateFailure(.update, report.message))
}

@_cdecl("vg_client_restart")
public func vg_client_restart(_ client: OpaquePointer?, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
                              _ cwd: UnsafePointer<CChar>?, _ exitStatus: UnsafeMutablePointer<Int32>?) -> Int32 {
    guard let handle = clientHandle(client) else { return VG_EINVAL.rawValue }
    if let forked = ForkGuard.refusal { return forked.code }
    var arguments: [String] = []
    if let argv {
        var index = 0
        while let word = argv[index] {
            guard let text = String(validatingCString: word) else {
                return refuse(handle, .invalidArgument("argv[\(index)] is not valid UTF-8"))
            }
            arguments.append(text)
            index += 1
        }
    } else if let own = InPlaceUpdate.ownArguments {
        arguments = own
    }
    guard !arguments.isEmpty else { return refuse(handle, .invalidArgument("no command to restart: argv is empty")) }
    let directory: String
    if let cwd {
        guard let text = String(validatingCString: cwd) else { return refuse(handle, .invalidArgument("cwd is not valid UTF-8")) }
        directory = text
    } else {
        directory = InPlaceUpdate.currentDirectory ?? "/"
    }
    switch InPlaceUpdate.restart(arguments: arguments, directory: directory, wait: exitStatus != nil) {
    case .failure(let failure):
        return refuse(handle, failure)
    case .success(let status):
        if let status { exitStatus?.pointee = status }
        handle.lastError.withLock { $0 = nil }
        return VG_OK.rawValue
    }
}

/// Records why for vg_client_last_error; the code.
private func refuse(_ handle: ClientHandle, _ failure: GateFailure) -> Int32 {
    handle.lastError.withLock { $0 = CText(failure.message) }
    return failure.code
}
