import VersionGateCore
import Synchronization

/// What one call has to tell its client's log callback. Lines are kept
/// and handed over when the call is done, on its thread: so the callback
/// never runs while a library lock is held, and may itself call the library.
package final class CallLog: Sendable {
    package struct Line: Sendable {
        package let level: LogLevel
        package let message: String
    }

    package let threshold: LogLevel
    private let lines = Mutex<[Line]>([])

    package init(threshold: LogLevel) {
        self.threshold = threshold
    }

    /// Records `message` if the threshold lets `level` through (the text is
    /// built only then).
    package func add(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        let line = Line(level: level, message: OneLine.text(message(), max: 1024))
        lines.withLock { $0.append(line) }
    }

    /// The lines so far, oldest first.
    package var recorded: [Line] { lines.withLock { $0 } }
}

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
