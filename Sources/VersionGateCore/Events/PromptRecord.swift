/// That a version was prompted (OPTIONAL or MANDATORY), kept so that a later
/// check of a newer version can say the update took (docs/design.md,
/// "Events"). Stored as three lines: the version, the Unix time of its
/// first prompt, the status then.
package struct PromptRecord: Sendable, Equatable {
    /// The prompted version, trimmed.
    package let from: String
    package let promptedAt: Int64
    package let statusThen: GateStatus

    package init(from: String, promptedAt: Int64, statusThen: GateStatus) {
        (self.from, self.promptedAt, self.statusThen) = (from, promptedAt, statusThen)
    }

    /// nil for anything but a well-formed record of a prompting status.
    package init?(bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[3].isEmpty,
              let from = withVersion(String(lines[0]), { $0?.trimmedText }), from == lines[0],
              let at = Int64(decimal: String(lines[1])) else { return nil }
        switch lines[2] {
        case "OPTIONAL": statusThen = .optional
        case "MANDATORY": statusThen = .mandatory
        default: return nil
        }
        (self.from, promptedAt) = (from, at)
    }

    package var bytes: [UInt8] { Array("\(from)\n\(promptedAt)\n\(statusThen.name)\n".utf8) }

    /// The update_confirmed rule: `current` is newer than the prompted version.
    package func isConfirmed(by current: String) -> Bool { Version.compare(current, from) == 1 }

    /// The update_confirmed event's own members.
    package func confirmedMembers(to current: String) -> [(String, JSONValue)] {
        [("from", .string(from)), ("to", .string(current)), ("prompted_at", .string(RFC3339.text(promptedAt))),
         ("status_then", .string(statusThen.name))]
    }
}
