import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Refreshing a snap through snapd, the helper's side (docs/design.md,
/// "Updating a snap"): `POST /v2/snaps/NAME {"action":"refresh"}` on snapd's
/// socket with `X-Allow-Interaction: true` (polkit may ask the user for a
/// password), then the change followed (`GET /v2/changes/ID`) to its end,
/// its tasks' progress sent to the host as it moves.
package enum SnapdRefresh {
    /// Where snapd listens; any user may connect, polkit decides a write.
    package static let socket = "/run/snapd.socket"
    /// How often the change is asked about while it runs.
    static let pollMilliseconds: Int32 = 250

    /// Refreshes `name` (its tracked channel, or `channel`) within
    /// `maxSeconds`; each request waits `limits.timeoutMs`, the refresh
    /// itself 30 times that (polkit may be asking for the password).
    /// `send` false: the host stopped listening; the change is aborted.
    package static func update(name: String, channel: String?, maxSeconds: Int, limits: TransportLimits,
                               socket: String = SnapdRefresh.socket,
                               send: (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        if let why = unreachable(socket) { return .updated(.unavailable, message: why) }
        let deadline = Deadline(afterMilliseconds: maxSeconds &* 1000)
        var body: [String: JSONValue] = ["action": .string("refresh")]
        if let channel { body["channel"] = .string(channel) }
        let request = HTTPRequest(url: "http://localhost/v2/snaps/\(name)", body: JSONValue.object(body).encoded(),
                                  headers: [("Content-Type", "application/json"), ("X-Allow-Interaction", "true")])
        var asking = limits
        asking.timeoutMs = min(limits.timeoutMs &* 30, deadline.remainingMilliseconds)
        asking.maxBodyBytes = SnapdEnvelope.maxBytes
        let answer: SnapdEnvelope
        switch exchange(request, socket: socket, limits: asking) {
        case .failure(let why): return .updated(why.outcome, message: "snapd: " + why.message)
        case .success(let envelope): answer = envelope
        }
        switch answer {
        case .error(let status, let kind, let message): return refusal(name, status: status, kind: kind, message: message)
        case .sync: return .updated(.failed, message: "snapd answered the refresh of \(name) at once, with no change to follow")
        case .async(let change):
            return follow(change, name: name, deadline: deadline, limits: limits, socket: socket, send: send)
        }
    }

    /// What snapd's refusal of the refresh means here (docs/design.md,
    /// "Updating a snap"): "nothing newer in the tracked channel" is the
    /// channel's answer; polkit's no, or a cancelled password dialog, a refusal.
    static func refusal(_ name: String, status: Int, kind: String?, message: String) -> HelperAnswer {
        switch kind {
        case "snap-no-update-available":
            return .updated(.nothingNew, message: "snapd has nothing newer for \(name) in its tracked channel")
        case "login-required", "auth-cancelled":
            return .updated(.refused, message: "snapd refused to refresh \(name): \(message) (\(kind ?? ""))")
        case "snap-not-installed", "snap-not-found":
            return .updated(.unavailable, message: "snapd does not have \(name) installed: \(message)")
        case "snap-change-conflict":
            return .updated(.failed, message: "snapd is already changing \(name): \(message); try again when it is done")
        default:
            return .updated(.failed, message: "snapd refused to refresh \(name): \(message) (HTTP \(status)"
                            + (kind.map { ", \($0))" } ?? ")"))
        }
    }

    /// Follows change `id` to its end, its progress sent as it moves.
    private static func follow(_ id: String, name: String, deadline: Deadline, limits: TransportLimits, socket: String,
                               send: (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        var asking = limits
        asking.maxBodyBytes = SnapdEnvelope.maxBytes
        var lastPercent = -1
        while true {
            guard deadline.remainingMilliseconds > 0 else {
                abortChange(id, socket: socket, limits: asking)
                return .updated(.failed, message: "snapd's refresh of \(name) (change \(id)) did not end in time; aborted")
            }
            asking.timeoutMs = min(limits.timeoutMs, deadline.remainingMilliseconds)
            let change: SnapdChange
            switch exchange(HTTPRequest(url: "http://localhost/v2/changes/\(id)"), socket: socket, limits: asking) {
            case .failure(let why):
                return .updated(.failed, message: "snapd stopped answering about change \(id): \(why.message)")
            case .success(.sync(let result)):
                guard let read = SnapdChange(result) else {
                    return .updated(.failed, message: "snapd's change \(id) is not one it would send")
                }
                change = read
            case .success(.error(_, _, let message)):
                return .updated(.failed, message: "snapd cannot tell change \(id): \(message)")
            case .success(.async):
                return .updated(.failed, message: "snapd's change \(id) is not one it would send")
            }
            if change.percent != lastPercent {
                lastPercent = change.percent
                guard send(.progress(UpdateProgress(op: 0, count: 1, percent: change.percent))) else {
                    abortChange(id, socket: socket, limits: asking)
                    return .updated(.cancelled, message: "cancelled by the host: snapd's change \(id) is aborted")
                }
            }
            if change.ready {
                return change.succeeded ? .updated(.installed, message: "snapd refreshed \(name)")
                    : .updated(.failed, message: "snapd's refresh of \(name) ended in \(change.status)"
                               + (change.error.map { ": \(OneLine.quoted($0, max: 300))" } ?? ""))
            }
            _ = usleep(UInt32(pollMilliseconds) * 1000)
        }
    }

    /// Asks snapd to abort change `id` (the host stopped listening, or time ran out).
    private static func abortChange(_ id: String, socket: String, limits: TransportLimits) {
        let request = HTTPRequest(url: "http://localhost/v2/changes/\(id)",
                                  body: JSONValue.object(["action": .string("abort")]).encoded(),
                                  headers: [("Content-Type", "application/json")])
        _ = exchange(request, socket: socket, limits: limits)
    }

    /// Why snapd cannot be reached at `socket`; nil when it may be.
    private static func unreachable(_ socket: String) -> String? {
        var s = stat()
        guard socket.withCString({ stat($0, &s) }) == 0 else {
            return "snapd is not running here (\(socket): \(String(cString: strerror(systemErrno))))"
        }
        return (s.st_mode & mode_t(S_IFMT)) == mode_t(S_IFSOCK) ? nil : "\(socket) is not snapd's socket"
    }

    /// Why an exchange with snapd failed, and what it makes of the update.
    struct Unanswered: Error {
        let outcome: UpdateOutcome
        let message: String
    }

    /// One request to snapd and its envelope.
    private static func exchange(_ request: HTTPRequest, socket: String,
                                 limits: TransportLimits) -> Result<SnapdEnvelope, Unanswered> {
        let response: HTTPResponse
        do throws(TransportError) {
            response = try CurlTransport().send(request, overSocket: socket, limits: limits)
        } catch {
            let outcome: UpdateOutcome = error.kind == .connect || error.kind == .unavailable ? .unavailable : .failed
            let why = error.kind == .timeout ? "no answer within \(limits.timeoutMs) ms" : error.message
            return .failure(Unanswered(outcome: outcome, message: why))
        }
        guard let envelope = SnapdEnvelope.decode(status: response.status, body: response.body) else {
            return .failure(Unanswered(outcome: .failed, message: "HTTP \(response.status) with no snapd envelope"))
        }
        return .success(envelope)
    }
}
