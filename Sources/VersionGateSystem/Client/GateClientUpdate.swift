import VersionGateCore
import VersionGateWire

extension GateClient {
    /// Updates this app in place to `result`'s newer version (docs/design.md,
    /// "Updating in place"): the administrator's policy first, then what can
    /// be updated here (InPlaceUpdate.kind), the helper's work with each step
    /// given to `progress` (false cancels), and the events around it given
    /// to `tell` (nil: nobody listens, nothing is built). A NOTHING_NEW is
    /// kept as its channel's answer (recordNothingNew). The outcome, and the
    /// failure for every outcome but `installed`.
    package func update(_ result: GateResult, tell: ((String) -> Void)?,
                        progress: (UpdateProgress) -> Bool) -> (outcome: UpdateOutcome, failure: GateFailure?) {
        guard result.status != .upToDate else {
            return (.failed, .invalidArgument("the result is UP_TO_DATE: there is nothing to update to"))
        }
        let settings = updateSettings
        // docs/design.md, "The administrator's policy": nothing installed, not even asked for.
        if let refusal = settings.refusal { return (.refused, GateFailure(.update, refusal)) }
        let found = InPlaceUpdate.kind(sandbox: system.sandbox, distroPackage: settings.distroPackage,
                                       program: settings.program, version: result.current,
                                       snapName: settings.snapName, snapChannel: settings.snapChannel,
                                       programOutput: system.programOutput)
        let kind = try? found.get()
        // Where nothing can be updated in place nothing happens, so nothing is told.
        let tell = kind == nil ? nil : tell
        let kindField: (String, JSONValue) = ("kind", .string(kind?.name ?? ""))
        let latest: (String, JSONValue) = ("latest", EventJSON.text(result.latest?.string))
        if let tell {
            tell(GateEvents.update(.updateStarted, result, client: self,
                                   [("status", .string(result.status.name)), latest, kindField]))
        }
        let fromCommit = kind == .flatpak ? system.flatpakCommit : nil
        let report = InPlaceUpdate.run(found, limits: settings.limits, gitHubAPI: settings.gitHubAPI,
                                       trustedKeys: settings.trustedKeys, helper: system.helper, onProgress: progress)
        if report.outcome == .installed, let kind, kind.restartsByPath { updatedPackage.withLock { $0 = true } }
        if let tell {
            tell(report.outcome == .installed
                ? GateEvents.update(.updateInstalled, result, client: self,
                                    [("from", EventJSON.text(result.current)), ("to", EventJSON.text(result.latest?.string)),
                                     ("from_commit", EventJSON.text(fromCommit)), kindField])
                : GateEvents.update(.updateFailed, result, client: self,
                                    [("outcome", .string(report.outcome.name)), ("reason", .string(report.message)),
                                     latest, kindField]))
        }
        // The channel serves nothing newer than this version: the next check lets it run.
        if report.outcome == .nothingNew, let kind, let current = result.current {
            recordNothingNew(kind, commit: fromCommit, version: current)
        }
        return report.outcome == .installed ? (.installed, nil) : (report.outcome, GateFailure(.update, report.message))
    }

    /// Starts the newest installed version of this app (InPlaceUpdate.restart):
    /// a package's or a snap's program again only once this client updated it.
    package func restart(arguments: [String], directory: String, wait: Bool) -> Result<Int32?, GateFailure> {
        InPlaceUpdate.restart(arguments: arguments, directory: directory, wait: wait,
                              updatedPackage: updatedPackage.withLock { $0 }, system: system)
    }
}
