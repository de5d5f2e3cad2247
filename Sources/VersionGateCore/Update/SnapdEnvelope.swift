/// What snapd's REST API answers (docs/design.md, "Updating a snap"): every
/// response is one JSON envelope whose `type` is `sync` (the result is
/// there), `async` (a change was started: follow `change`) or `error`
/// (`result.kind` says which, `result.message` why).
package enum SnapdEnvelope: Sendable, Equatable {
    case sync(JSONValue)
    case async(change: String)
    case error(status: Int, kind: String?, message: String)

    /// The largest answer read: a snap's or a change's JSON is a few kB.
    package static let maxBytes = 1 << 20

    /// The envelope of an HTTP answer with `status`; nil when the body is
    /// not one (then the peer is not snapd, or a broken one).
    package static func decode(status: Int, body: [UInt8]) -> SnapdEnvelope? {
        guard body.count <= maxBytes, let json = try? JSONReader.read(body), case .string(let type)? = json["type"] else {
            return nil
        }
        switch type {
        case "sync": return .sync(json["result"] ?? .null)
        case "async":
            // It goes into the next request's path: snapd's ids are short and alphanumeric.
            guard case .string(let change)? = json["change"], (1...64).contains(change.utf8.count),
                  change.utf8.allSatisfy({ ASCII.isDigit($0) || ASCII.isLetter($0) })
            else { return nil }
            return .async(change: change)
        case "error":
            let result = json["result"]
            let message: String
            if case .string(let text)? = result?["message"], !text.isEmpty { message = text } else {
                message = "snapd answered \(status)"
            }
            var kind: String?
            if case .string(let text)? = result?["kind"], !text.isEmpty { kind = text }
            return .error(status: status, kind: kind, message: message)
        default: return nil
        }
    }
}

/// A change snapd runs (`GET /v2/changes/ID`'s result): how far its tasks
/// are, and how it ended.
package struct SnapdChange: Sendable, Equatable {
    /// `Do`, `Doing`, `Done`, `Error`, `Undone`, `Hold`, …
    package let status: String
    package let ready: Bool
    /// Why it failed, when it did.
    package let error: String?
    /// Its tasks' progress summed: `done` of `total` units, over `tasks` tasks.
    package let done: Int, total: Int, tasks: Int

    package init?(_ result: JSONValue) {
        guard case .string(let status)? = result["status"] else { return nil }
        self.status = status
        if case .bool(let ready)? = result["ready"] { self.ready = ready } else { ready = false }
        if case .string(let text)? = result["err"], !text.isEmpty { error = text } else { error = nil }
        var done = 0, total = 0, count = 0
        if case .array(let tasks)? = result["tasks"] {
            count = tasks.count
            for task in tasks {
                let progress = task["progress"]
                let taskTotal = Self.count(progress?["total"]), taskDone = Self.count(progress?["done"])
                total += max(taskTotal, 1)
                done += taskTotal == 0 ? (Self.isFinished(task["status"]) ? 1 : 0) : min(taskDone, taskTotal)
            }
        }
        (self.done, self.total, tasks) = (done, total, count)
    }

    /// Ended well: snapd's `Done`.
    package var succeeded: Bool { ready && status == "Done" }

    /// Done of the whole, 0-100.
    package var percent: Int { total == 0 ? (ready ? 100 : 0) : done * 100 / total }

    /// A whole count from JSON, clamped: snapd's are small, a hostile one is not trusted.
    private static func count(_ value: JSONValue?) -> Int {
        guard case .number(let number)? = value, number.isFinite, number > 0 else { return 0 }
        return number >= 1e9 ? 1_000_000_000 : Int(number)
    }

    private static func isFinished(_ status: JSONValue?) -> Bool {
        guard case .string(let text)? = status else { return false }
        return text == "Done" || text == "Undone" || text == "Error" || text == "Hold"
    }
}
