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
