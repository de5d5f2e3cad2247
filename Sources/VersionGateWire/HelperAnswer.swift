import VersionGateCore

/// What the helper sends back (docs/design.md, "The helper's protocol"):
/// any number of interim records (an update's progress, log lines) as they
/// happen, then one final answer, then end of file.
package enum HelperAnswer: Sendable {
    /// A fetch's config, as the cache file holds it (CachedConfig's JSON),
    /// and that file's identity when the helper wrote it: the host then does
    /// not read back what it was handed.
    case fetched(origin: ConfigOrigin, note: String?, entry: [UInt8], identity: FileIdentity?)
    /// A channel's next cache entry (ChannelEntry's JSON), as written.
    case learned(entry: [UInt8])
    /// How an update in place ended.
    case updated(UpdateOutcome, message: String)
    /// The restarted version started; with `status`, it ran and ended.
    case restarted(status: Int32?)
    /// The request could not be served: the failure, kind and message.
    case failed(GateFailure)

    /// A record sent before the final answer.
    package enum Interim: Sendable, Equatable {
        case progress(UpdateProgress)
        case log(LogLevel, String)
        /// A watched source changed: the decision may have (docs/design.md, "Watching a source").
        case changed
    }

    package func message() -> HelperMessage {
        var message = HelperMessage()
        switch self {
        case .fetched(let origin, let note, let entry, let identity):
            message.add("outcome", "fetched")
            message.add("origin", origin.rawValue)
            if let note { message.add("note", note) }
            message.add("entry", String(decoding: entry, as: UTF8.self))
            if let identity { message.add("identity", identity.wireText) }
        case .learned(let entry):
            message.add("outcome", "learned")
            message.add("entry", String(decoding: entry, as: UTF8.self))
        case .updated(let outcome, let text):
            message.add("outcome", "updated")
            message.add("update", outcome.name)
            message.add("message", text)
        case .restarted(let status):
            message.add("outcome", "restarted")
            if let status { message.add("status", String(status)) }
        case .failed(let failure):
            message.add("outcome", "failed")
            message.add("kind", failure.kind.rawValue)
            message.add("message", failure.message)
        }
        return message
    }

    /// The final answer in `message`; nil when it is not one (a helper of
    /// another build, or one that died mid-answer).
    package static func decode(_ message: HelperMessage) -> HelperAnswer? {
        switch message.value("outcome") {
        case "fetched":
            guard let origin = message.value("origin").flatMap(ConfigOrigin.init(rawValue:)),
                  let entry = message.value("entry") else { return nil }
            return .fetched(origin: origin, note: message.value("note"), entry: Array(entry.utf8),
                            identity: message.value("identity").flatMap { FileIdentity(wireText: $0) })
        case "learned":
            guard let entry = message.value("entry") else { return nil }
            return .learned(entry: Array(entry.utf8))
        case "updated":
            guard let outcome = message.value("update").flatMap(UpdateOutcome.init(name:)) else { return nil }
            return .updated(outcome, message: message.value("message") ?? "")
        case "restarted":
            guard let text = message.value("status") else { return .restarted(status: nil) }
            guard let status = HelperMessage.integer(text) else { return nil }
            return .restarted(status: Int32(clamping: status))
        case "failed":
            let kind = message.value("kind").flatMap(GateFailure.Kind.init(rawValue:)) ?? .internalError
            return .failed(GateFailure(kind, message.value("message") ?? "the helper failed"))
        default:
            return nil
        }
    }
}

extension HelperAnswer.Interim {
    /// One record of its own.
    package var record: HelperMessage {
        var message = HelperMessage()
        switch self {
        case .progress(let progress): message.add("progress", [progress.op, progress.count, progress.percent].map { String($0) }.joined(separator: " "))
        case .log(let level, let line): message.add("log", level.rawValue + " " + line)
        case .changed: message.add("changed", "1")
        }
        return message
    }

    /// The interim record `record` is; nil when it is part of the final answer.
    package init?(_ record: HelperMessage.Record) {
        switch record.name {
        case "progress":
            let numbers = record.value.split(separator: " ").compactMap { HelperMessage.integer(String($0)) }
            guard numbers.count == 3 else { return nil }
            self = .progress(UpdateProgress(op: numbers[0], count: numbers[1], percent: numbers[2]))
        case "log":
            let (level, line) = HelperMessage.split(record.value, at: " ")
            guard let level = LogLevel(rawValue: level) else { return nil }
            self = .log(level, line)
        case "changed":
            self = .changed
        default:
            return nil
        }
    }
}
