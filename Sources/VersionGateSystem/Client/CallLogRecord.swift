import VersionGateCore
import VersionGatePlatform

extension CallLog {
    /// A check's outcome: why it fails open or fell back (naming the file or
    /// URL), the store URL's story, then the decision itself.
    package func record(_ result: GateResult) {
        if let failure = result.failure {
            let decided = result.origin != nil
            add(Self.level(of: failure), decided ? "config problem: \(failure.message)" : "fails open: \(failure.message)")
        }
        if let failure = result.fetchFailure {
            let from = result.origin == .embeddedDefault
                ? "the embedded default" : "the cache (\(result.configAgeSeconds ?? 0) s old)"
            add(.warning, "\(failure.message); decided from \(from)")
        }
        record(storeNote: result.storeNote, refused: result.storeRefusedSome)
        add(.debug, "\(result.status.name) (\(result.rule.nameText): \(result.decision.reason)) from "
            + "\(result.source ?? "no source"), \(LoadedConfig.Origin.name(result.origin))"
            + (result.note.map { "; \($0)" } ?? ""))
    }

    package func record(storeNote: String?, refused: Bool) {
        guard let storeNote else { return }
        add(refused ? .warning : .info, "store URL: \(storeNote)")
    }

    /// The operator's own mistakes are errors; the network's and the
    /// machine's are warnings (the gate failed open, as designed).
    private static func level(of failure: GateFailure) -> LogLevel {
        switch failure.kind {
        case .config, .policy, .invalidVersion, .invalidArgument: return .error
        default: return .warning
        }
    }
}
