import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// A MANDATORY decision judged by the user's own channel before it blocks
/// (docs/design.md, "Asking the channel"), and the administrator's
/// `mandatory: warn` after it; what an update's "nothing newer" told is
/// kept here for the client's next checks.
extension GateClient {
    /// `decision` as the administrator's `mandatory: warn` leaves it; moved
    /// through when no policy says so (docs/design.md, "The administrator's policy").
    static func underPolicy(_ decision: consuming Decision, _ managed: ManagedFacts) -> Decision {
        if let file = managed.mandatoryWarnFile, let accepted = decision.accepted(byPolicy: file) { return accepted }
        return decision
    }

    /// `decision` once the user's channel answered, as it was when none is
    /// known (docs/design.md, "Asking the channel").
    func judged(_ decision: consuming Decision, _ settings: State, _ system: System,
                        _ deadline: inout LazyDeadline, _ log: CallLog?) -> Decision {
        guard let answer = askChannel(settings, system, &deadline, current: decision.current, log) else {
            return decision
        }
        return decision.judged(by: answer)
    }

    /// The user's channel's answer before a MANDATORY blocks; nil when no
    /// channel is known.
    func askChannel(_ settings: State, _ system: System, _ deadline: inout LazyDeadline, current: VersionText?,
                            _ log: CallLog?) -> ChannelAnswer? {
        if let current, let known = nothingNewAnswer(current, settings, system) { return known }
        // A warm block with no channel to ask allocates nothing more (Tests/c/warm_alloc_test.c)
        // and copies no options: they are read in place until one may be asked.
        guard ChannelChoice.mayAsk(settings.options, system.sandbox) else { return nil }
        let options = settings.options
        if let commit = system.flatpakCommit,
           let known = NothingNewerRecord(options: options, system: system).flatpakAnswer(commit: commit,
                                                                                          now: system.wallClock()) {
            return known
        }
        guard let question = ChannelChoice.question(options, system,
                                                    country: StoreLocator.country(options, system.environment),
                                                    version: current?.string)
        else { return nil }
        return ChannelAsker(options: options, system: system).ask(question, deadline: deadline.get(), now: system.wallClock(),
                                                                  log: log, trace: deadline.traced())
    }

    /// What NOTHING_NEW told about `version`: this client's update's, kept
    /// here; else an earlier launch's PackageKit answer, read once per client
    /// and version (its age checked then): a warm block reads no file.
    func nothingNewAnswer(_ version: VersionText, _ settings: State, _ system: System) -> ChannelAnswer? {
        let known = state.withLock { $0.settings === settings ? $0.nothingNew.lookup(version) : (known: false, answer: nil) }
        if known.known { return known.answer }
        let answer = NothingNewerRecord(options: settings.options, system: system)
            .answer(keyApp: settings.nothingNewKeyApp, version: version.string, now: system.wallClock())
        return state.withLock { current in
            current.settings === settings ? current.nothingNew.read(version, answer) : answer
        }
    }

    /// An update of `kind` found nothing newer than `version` (which ran
    /// from `commit`, in a Flatpak): its channel is behind (docs/design.md,
    /// "Asking the channel"). This client's next check decides from the
    /// answer kept here; the channel's cache, written here too, tells the
    /// next launches within its TTL. An AppImage's has no channel to keep.
    func recordNothingNew(_ kind: HelperRequest.Update.Kind, commit: String?, version: String) {
        let options = state.withLock { $0.settings.options }
        let record = NothingNewerRecord(options: options, system: system)
        let answer: ChannelAnswer
        switch kind {
        case .flatpak:
            guard let commit else { return }
            answer = record.recordFlatpak(commit: commit, version: version, now: system.wallClock())
        case .package(let name):
            answer = record.record(.package, package: name, version: version, now: system.wallClock())
        case .snap(let name, _):
            answer = record.record(.snap, package: name, version: version, now: system.wallClock())
        case .appImage:
            return
        }
        state.withLock { $0.nothingNew.updated(VersionText(version), answer) }
    }
}
