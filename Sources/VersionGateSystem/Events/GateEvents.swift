import VersionGateCore

/// The events of one check or report on a client (docs/design.md, "Events"),
/// built only when the client has an event callback: with none, nothing
/// here runs.
package enum GateEvents {
    /// A check's events: `update_confirmed` first when this check shows the
    /// update took, then `decided` with `decided`'s members (the result's
    /// fields of those names). A prompting check of a valid version is
    /// recorded for a later `update_confirmed`. Under dry_run neither happens.
    package static func check(_ result: GateResult, decided: [(String, JSONValue)], client: GateClient,
                              confirmations: UpdateConfirmations) -> [String] {
        let (options, _) = client.settings
        let context = context(result, platform: options.platform, client.system)
        var events: [String] = []
        // dry_run changes nothing: a record is neither claimed nor written.
        if let source = result.source, let current = result.current, !options.dryRun {
            if let record = confirmations.claim(source: source, platform: options.platform, current: current,
                                                client.system) {
                events.append(EventJSON.text(.updateConfirmed, context, record.confirmedMembers(to: current)))
            }
            if result.shouldPrompt {
                confirmations.recordPrompt(source: source, platform: options.platform, version: current,
                                           status: result.status, now: context.time, client.system)
            }
        }
        events.append(EventJSON.text(.decided, context, decided))
        return events
    }

    /// What the host did with `result`'s prompt (vg_client_report): the
    /// prompt is recorded for `update_confirmed`, "skip" skips the latest
    /// version, and the `outcome` event is returned (nil when `emit` is
    /// false: no callback listens), with why skipping failed, if it did
    /// (the outcome is still recorded and emitted then).
    package static func report(_ outcome: ReportedOutcome, _ result: GateResult, client: GateClient,
                               confirmations: UpdateConfirmations, emit: Bool) -> (event: String?, failure: GateFailure?) {
        let (options, _) = client.settings
        let context = context(result, platform: options.platform, client.system)
        if let source = result.source, let current = result.current, !options.dryRun {
            confirmations.recordPrompt(source: source, platform: options.platform, version: current,
                                       status: result.status, now: context.time, client.system)
        }
        var failure: GateFailure?
        if outcome == .skip {
            do throws(GateFailure) {
                guard let latest = result.latest?.string else { throw .invalidArgument("the result has no latest version to skip") }
                try client.skipVersion(latest)
            } catch {
                failure = error
            }
        }
        guard emit else { return (nil, failure) }
        var members: [(String, JSONValue)] = [
            ("outcome", .string(outcome.rawValue)),
            ("status", .string(result.status.name)),
            ("latest", EventJSON.text(result.latest?.string)),
        ]
        if outcome.concernsStore { members.append(("url", EventJSON.text(result.storeURL?.string))) }
        return (EventJSON.text(.outcome, context, members), failure)
    }

    /// An update in place of `result`'s app (vg_client_update): started,
    /// installed or failed, with `members`.
    package static func update(_ kind: EventKind, _ result: GateResult, client: GateClient,
                               _ members: [(String, JSONValue)]) -> String {
        EventJSON.text(kind, context(result, platform: client.settings.0.platform, client.system), members)
    }

    private static func context(_ result: GateResult, platform: String, _ system: System) -> EventJSON.Context {
        EventJSON.Context(time: system.wallClock(), source: result.source, platform: platform, current: result.current)
    }
}
