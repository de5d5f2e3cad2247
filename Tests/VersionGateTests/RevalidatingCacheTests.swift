import Foundation
import Synchronization
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// The three answers the revalidating cache keeps (docs/design.md, "One
/// revalidating cache"), walked through the same timeline on a clock of
/// the test's own, each a new client as a launcher start is, their
/// questions served through the wire in this process (InProcessHelper):
/// a remote config; the App Store channel a MANDATORY asks; the App Store
/// link an OPTIONAL shows. The same server script gives each the same
/// requests: fresh answers with none, stale with one behind it, a 429's
/// Retry-After and a 500's backoff hold every request back, a slow answer
/// is waited for, and max-stale ends the last answer's stand-in.
final class RevalidatingCacheTests: XCTestCase {
    private static let t0: Int64 = 1_700_000_000
    private let ttl: Int64 = 3600, window: Int64 = 600, maxStale: Int64 = 86_400

    private final class TestClock: Sendable {
        private let seconds = Mutex(RevalidatingCacheTests.t0)
        func set(_ value: Int64) { seconds.withLock { $0 = value } }
        func now() -> Int64 { seconds.withLock { $0 } }
    }

    /// Which answer is under test, and what a check shows of it.
    private enum Kind: String, CaseIterable {
        case config, channel, link
    }

    private struct World {
        let kind: Kind
        let server: LoopbackServer
        let clock = TestClock()
        let environment: CheckEnvironment
        let localGate: String
    }

    private func world(_ kind: Kind) throws -> World {
        let server = try LoopbackServer(self)
        let home = try makeTemporaryDirectory(self)
        // The channel's MANDATORY and the link's OPTIONAL come from a local
        // document: only the answer under test is remote.
        let gate = kind == .channel ? #"{"min_required_version_linux": "9.0", "latest_version_linux": "9.0"}"#
            : #"{"min_required_version_linux": "0.1", "latest_version_linux": "9.0"}"#
        let localGate = home.appendingPathComponent("gate.json")
        try Data(gate.utf8).write(to: localGate)
        // Aged: a document changed in the last 2 s is re-read at every check.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)],
                                              ofItemAtPath: localGate.path)
        let w = World(kind: kind, server: server,
                      environment: CheckEnvironment(variables: ["XDG_CACHE_HOME": home.path + "/cache",
                                                                "XDG_STATE_HOME": home.path + "/state",
                                                                "HOME": home.path]),
                      localGate: localGate.path)
        try publish(w, "2.0.1")
        return w
    }

    /// What the server answers with `version` (and, for the App Store, a
    /// trackId that names it: 2.0.1 -> 201).
    private func publish(_ w: World, _ version: String, next: [[String: Any]]? = nil) throws {
        let body: String
        switch w.kind {
        case .config:
            body = #"{"min_required_version_linux": "0.1", "latest_version_linux": "\#(version)"}"#
        case .channel, .link:
            let id = version.replacingOccurrences(of: ".", with: "")
            body = #"{"resultCount":1,"results":[{"trackId":\#(id),"version":"\#(version)","bundleId":"com.example.app"}]}"#
        }
        var command: [String: Any] = ["name": w.kind.rawValue, "body": body, "etag": "\"\(version)\"", "delay_s": 0]
        if let next { command["next"] = next }
        try w.server.document(command)
    }

    /// One launcher start at `now`: what it shows of the answer under test
    /// (the config's latest, the channel's version, the link's trackId as
    /// a version), nil when none.
    private func launch(_ w: World, at now: Int64, timeoutMs: Int = 3000) throws -> String? {
        w.clock.set(now)
        let clock = w.clock
        let client = GateClient(system: System(wallClock: { clock.now() }, environment: w.environment,
                                               helper: InProcessHelper()))
        try client.set("session_scope", "process")
        try client.set("timeout_ms", String(timeoutMs))
        try client.set("cache_ttl_s", String(ttl))
        try client.set("stale_while_revalidate_s", String(window))
        try client.set("max_stale_s", String(maxStale))
        switch w.kind {
        case .config:
            try client.set("source", w.server.url("/doc/config"))
        case .channel, .link:
            try client.set("source", w.localGate)
            try client.set("store", "appstore")
            try client.set("app_id", "com.example.app")
            try client.set("country", "us")
            try client.set("itunes_endpoint", w.server.url("/doc/\(w.kind.rawValue)"))
        }
        var text = "1.0"
        let result = text.withUTF8 { client.check(current: $0) }
        switch w.kind {
        case .config: return result.latest?.string
        case .channel: return result.decision.channel?.version
        case .link:
            guard let url = result.storeURL?.string, let id = url.split(separator: "/").last, id.hasPrefix("id") else {
                return nil
            }
            return id.dropFirst(2).map(String.init).joined(separator: ".")
        }
    }

    private func requests(_ w: World) throws -> Int {
        try w.server.requests().filter { ($0["path"] as? String)?.hasPrefix("/doc/\(w.kind.rawValue)") == true }.count
    }

    /// Each step: when, what the server does, what the launch shows, and
    /// how many requests it made.
    func testTheConfigTheChannelAndTheLinkRevalidateAlike() throws {
        for kind in Kind.allCases {
            let w = try world(kind)
            let t0 = Self.t0
            var asked = 0
            func step(_ name: String, at offset: Int64, shows expected: String?, requests: Int,
                      timeoutMs: Int = 3000) throws {
                let shown = try launch(w, at: t0 + offset, timeoutMs: timeoutMs)
                asked += requests
                XCTAssertEqual(shown, expected, "\(kind): \(name)")
                XCTAssertEqual(try self.requests(w), asked, "\(kind): \(name): requests")
            }
            try step("first launch asks", at: 0, shows: "2.0.1", requests: 1)
            try publish(w, "2.0.2")
            try step("fresh: no request", at: 60, shows: "2.0.1", requests: 0)
            // Stale within the window: the cache answers, one revalidation runs behind it.
            try step("stale: answers, revalidates behind", at: ttl + 60, shows: "2.0.1", requests: 1)
            try step("revalidated: fresh again", at: ttl + 120, shows: "2.0.2", requests: 0)

            // A 429: the last answer stands; no request until the backoff ends
            // (2 min ±50 %: Retry-After is honoured over https only, and this server is http).
            try publish(w, "2.0.3", next: [["status": 429, "headers": ["Retry-After": "7200"], "body": "slow down"]])
            let due = 2 * ttl + 2 * window
            try step("429: the last answer stands", at: due, shows: "2.0.2", requests: 1)
            try step("backing off: not asked", at: due + 50, shows: "2.0.2", requests: 0)
            try step("backoff over: asked again", at: due + 200, shows: "2.0.3", requests: 1)

            // A 500: backed off rather than asked at every launch.
            try publish(w, "2.0.4", next: [["status": 500, "body": "oops"]])
            let broken = due + 200 + ttl + window + 60
            try step("500: the last answer stands", at: broken, shows: "2.0.3", requests: 1)
            try step("500: not asked again at once", at: broken + 1, shows: "2.0.3", requests: 0)

            // Slow but within the deadline: waited for, once.
            try publish(w, "2.0.5", next: [["delay_s": 0.4]])
            let slow = broken + 2 * 86_400
            try step("slow: waited for", at: slow, shows: "2.0.5", requests: 1, timeoutMs: 3000)

            // Failing for longer than max-stale: the stand-in ends (the link's
            // trackId never changes for an app, so the known one still serves).
            try publish(w, "2.0.6", next: Array(repeating: ["status": 503, "body": "down"], count: 4))
            let gone = slow + maxStale + 3600
            try step("beyond max-stale", at: gone, shows: kind == .link ? "2.0.5" : nil, requests: 1)
            try step("beyond max-stale, backing off: not asked", at: gone + 1, shows: kind == .link ? "2.0.5" : nil,
                     requests: 0)
        }
    }
}
