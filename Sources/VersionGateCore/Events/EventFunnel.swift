/// What an operator reads from events files (`versiongate simulate
/// --events`, docs/operators.md): per version, how many prompts were shown
/// and what came of them, up to the updates that took. A prompt is counted
/// under the version it was shown to (`current`); a confirmation under the
/// version it left (`from`).
package struct EventFunnel: Sendable {
    package struct Row: Sendable, Equatable {
        package var prompted = 0, later = 0, skip = 0, dismissed = 0, update = 0, confirmed = 0
    }

    private var rows: [String: Row] = [:]
    /// Lines that are not an event of a known kind, or name no valid version.
    package private(set) var ignored = 0

    package init() {}

    /// Larger events files are refused: split them (a line is about 300 bytes).
    package static let maxFileBytes = 64 << 20

    /// Adds the events of a file of JSON lines (what `--events` writes).
    package mutating func add(lines bytes: [UInt8]) {
        for line in bytes.split(separator: UInt8(ascii: "\n")) where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
            add(event: try? JSONValue.decode(Array(line)))
        }
    }

    private mutating func add(event: JSONValue?) {
        guard let event, case .string(let kind)? = event["event"] else { ignored += 1; return }
        switch EventKind(rawValue: kind) {
        case .decided, .updateStarted, .updateInstalled, .updateFailed: return
        case .updateConfirmed: count(event["from"]) { $0.confirmed += 1 }
        case .outcome:
            guard case .string(let name)? = event["outcome"], let outcome = ReportedOutcome(rawValue: name) else {
                ignored += 1
                return
            }
            switch outcome {
            case .shown: count(event["current"]) { $0.prompted += 1 }
            case .later: count(event["current"]) { $0.later += 1 }
            case .skip: count(event["current"]) { $0.skip += 1 }
            case .dismissed: count(event["current"]) { $0.dismissed += 1 }
            case .update: count(event["current"]) { $0.update += 1 }
            case .storeOpened, .storeOpenFailed: return
            }
        case nil: ignored += 1
        }
    }

    private mutating func count(_ version: JSONValue?, _ change: (inout Row) -> Void) {
        guard case .string(let text)? = version, let trimmed = withVersion(text, { $0?.trimmedText }) else {
            ignored += 1
            return
        }
        change(&rows[trimmed, default: Row()])
    }

    /// The row of `version` (trimmed), if any event named it.
    package func row(_ version: String) -> Row? { rows[version] }

    /// A header line, then one line per version, oldest first:
    /// `VERSION PROMPTED LATER SKIP DISMISSED UPDATE CONFIRMED`.
    package var text: String {
        let versions = rows.keys.sorted { (Version.compare($0, $1) ?? 0) < 0 }
        var lines = ["version prompted later skip dismissed update confirmed"]
        for version in versions {
            guard let r = rows[version] else { continue }
            lines.append("\(version) \(r.prompted) \(r.later) \(r.skip) \(r.dismissed) \(r.update) \(r.confirmed)")
        }
        if ignored > 0 { lines.append("# \(ignored) line\(ignored == 1 ? "" : "s") not counted") }
        return lines.map { $0 + "\n" }.joined()
    }
}
