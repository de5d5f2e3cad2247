import Foundation
import Synchronization
import XCTest
import VersionGateC
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// A self-hosted document walked through hours and days on a clock of the
/// test's own, set through the client's System seam (the C ABI has no clock
/// hook): freshness, the stale fallback, and the persisted backoff. The
/// server is the real loopback one; every check is a new client, as a
/// launcher start is.
final class RemoteOverTimeTests: XCTestCase {
    private static let t0: Int64 = 1_700_000_000
    private let hour: Int64 = 3600
    private let day: Int64 = 86_400
    private let gate = #"{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41"}"#

    /// The wall clock the checks see.
    private final class TestClock: Sendable {
        private let seconds = Mutex(RemoteOverTimeTests.t0)
        func set(_ value: Int64) { seconds.withLock { $0 = value } }
        func now() -> Int64 { seconds.withLock { $0 } }
    }

    private struct Setup {
        let server: LoopbackServer
        let url: String
        let clock = TestClock()
        let environment: CheckEnvironment
    }

    private func setup(_ name: String, document: String? = nil) throws -> Setup {
        let server = try LoopbackServer(self)
        let home = try makeTemporaryDirectory(self)
        try server.document(["name": name, "body": document ?? gate, "etag": "\"v1\""])
        return Setup(server: server, url: server.url("/doc/\(name)"),
                     environment: CheckEnvironment(variables: ["XDG_CACHE_HOME": home.path + "/cache",
                                                               "XDG_STATE_HOME": home.path + "/state",
                                                               "HOME": home.path]))
    }

    /// One launcher start at `now`.
    private func check(_ s: Setup, at now: Int64, _ version: String = "1.0.38", boot: BootInstant? = nil,
                       options: [String: String] = [:]) throws -> GateResult {
        s.clock.set(now)
        let clock = s.clock
        // Served in this process through the wire: the clock is the test's,
        // and `swift test` has no fetch helper beside it (the C and Python suites use it).
        let client = GateClient(system: System(wallClock: { clock.now() }, environment: s.environment,
                                               bootClock: { boot }, helper: InProcessHelper()))
        try client.set("source", s.url)
        try client.set("session_scope", "process")
        // These walk the fetch-first rules; the window has tests of its own.
        try client.set("stale_while_revalidate_s", "0")
        for (key, value) in options { try client.set(key, value) }
        var text = version
        return text.withUTF8 { client.check(current: $0) }
    }

    private func documentRequests(_ s: Setup) throws -> Int {
        try s.server.requests().filter { ($0["path"] as? String)?.hasPrefix("/doc/") == true }.count
    }

    func testAFetchIsFreshForTheTTLThenRevalidated() throws {
        let s = try setup("ttl")
        let t0 = Self.t0
        let first = try check(s, at: t0)
        XCTAssertEqual(first.origin, .freshFetch)
        XCTAssertEqual(first.status, .mandatory)
        XCTAssertEqual(try check(s, at: t0 + 1800).origin, .cacheHit)
        XCTAssertEqual(try check(s, at: t0 + hour - 1).configAgeSeconds, hour - 1)
        XCTAssertEqual(try documentRequests(s), 1, "a fresh cache must answer without network")
        let due = try check(s, at: t0 + hour)
        XCTAssertEqual(due.origin, .freshFetch)
        XCTAssertEqual(due.configAgeSeconds, 0)
        XCTAssertEqual(try documentRequests(s), 2)
        let conditional = try s.server.requests().last { ($0["path"] as? String)?.hasPrefix("/doc/") == true }
        let headers = conditional?["headers"] as? [String: Any]
        XCTAssertEqual(headers?["if-none-match"] as? String, "\"v1\"", "the due fetch revalidates with the ETag")
    }

    /// Within the stale-while-revalidate window a check answers from the
    /// cache at once (origin stale_cache) and one refresh runs behind it
    /// (in this process here: before the answer); past the window it fetches first.
    func testAStaleCacheAnswersAtOnceAndOneRefreshRunsBehindIt() throws {
        let s = try setup("swr")
        let t0 = Self.t0
        let window = ["stale_while_revalidate_s": "600"]
        XCTAssertEqual(try check(s, at: t0, options: window).origin, .freshFetch)
        let stale = try check(s, at: t0 + hour + 10, options: window)
        XCTAssertEqual(stale.origin, .staleCache)
        XCTAssertEqual(stale.status, .mandatory, "a MANDATORY in the stale cache still blocks")
        let deadline = Date().addingTimeInterval(10)
        while try documentRequests(s) < 2 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(try documentRequests(s), 2, "one refresh behind the check")
        // The refresh writes the cache after its request (and removes its marker).
        var after = try check(s, at: t0 + hour + 20, options: window)
        while after.origin == .staleCache && Date() < deadline {
            usleep(20_000)
            after = try check(s, at: t0 + hour + 20, options: window)
        }
        XCTAssertEqual(after.origin, .cacheHit, "refreshed")
        XCTAssertEqual(try documentRequests(s), 2, "a pending refresh is not started twice")
        XCTAssertEqual(try check(s, at: t0 + 2 * hour + 20 + 600, options: window).origin, .freshFetch,
                       "past the window: a fetch first")
        XCTAssertEqual(try documentRequests(s), 3)
    }

    func testAFailedFetchFallsBackToTheCacheUntilMaxStale() throws {
        let s = try setup("stale")
        let t0 = Self.t0
        XCTAssertEqual(try check(s, at: t0).origin, .freshFetch)
        try s.server.document(["name": "stale", "next": Array(repeating: ["status": 404], count: 4)])
        let stale = try check(s, at: t0 + 2 * hour)
        XCTAssertEqual(stale.origin, .cacheAfterError)
        XCTAssertEqual(stale.status, .mandatory, "a stale MANDATORY stays MANDATORY")
        XCTAssertEqual(stale.configAgeSeconds, 2 * hour)
        XCTAssertEqual(stale.errorCode, VG_OK.rawValue)
        XCTAssertEqual(stale.fetchFailure?.kind, .http)
        XCTAssertEqual(try check(s, at: t0 + day).origin, .cacheAfterError)
        let tooOld = try check(s, at: t0 + day + 1)
        XCTAssertEqual(tooOld.status, .upToDate)
        XCTAssertEqual(tooOld.origin, nil)
        XCTAssertEqual(tooOld.errorCode, VG_EHTTP.rawValue)
        let never = try check(s, at: t0 + 2 * hour, options: ["max_stale_s": "0"])
        XCTAssertEqual(never.status, .upToDate, "max_stale_s=0 never answers from a stale cache")
    }

    func testThrottlingBacksOffAcrossStartsUntilItEnds() throws {
        let s = try setup("throttled")
        let t0 = Self.t0
        try s.server.document(["name": "throttled", "next": [["status": 503]]])
        XCTAssertEqual(try check(s, at: t0).errorCode, VG_EHTTP.rawValue)
        XCTAssertEqual(try documentRequests(s), 1)
        // 2 min ±50 %: certainly backing off at +59 s, certainly over at +181 s.
        let waiting = try check(s, at: t0 + 59)
        XCTAssertEqual(waiting.errorCode, VG_EBACKOFF.rawValue)
        XCTAssertEqual(try documentRequests(s), 1, "no request while backing off")
        let after = try check(s, at: t0 + 181)
        XCTAssertEqual(after.origin, .freshFetch)
        XCTAssertEqual(after.status, .mandatory)
        XCTAssertEqual(try documentRequests(s), 2)
    }

    func testAClockMovedBackDoesNotMakeTheCacheFresh() throws {
        let s = try setup("backwards")
        let t0 = Self.t0
        XCTAssertEqual(try check(s, at: t0).origin, .freshFetch)
        // Before the fetch: the entry claims to come from the future.
        XCTAssertEqual(try check(s, at: t0 - hour).origin, .freshFetch)
        XCTAssertEqual(try documentRequests(s), 2)
    }

    /// The wall clock set back 30 minutes an hour after the fetch: by the wall
    /// the cache is 30 minutes old, by the boot clock an hour: it is due.
    func testAWallClockSetBackDoesNotMakeAnOldCacheYoung() throws {
        let s = try setup("setback")
        let t0 = Self.t0
        let fetchedAt = BootInstant(bootID: "boot-a", seconds: 1000)
        XCTAssertEqual(try check(s, at: t0, boot: fetchedAt).origin, .freshFetch)
        let anHourLater = BootInstant(bootID: "boot-a", seconds: 1000 + hour)
        let due = try check(s, at: t0 + 1800, boot: anHourLater)
        XCTAssertEqual(due.origin, .freshFetch, "an hour really passed")
        XCTAssertEqual(try documentRequests(s), 2)
        // Another boot: the boot clocks say nothing about each other, the wall decides.
        let otherBoot = BootInstant(bootID: "boot-b", seconds: 10)
        XCTAssertEqual(try check(s, at: t0 + 1800 + 60, boot: otherBoot).origin, .cacheHit)
        // Without a boot clock at all (a kernel without boot ids), the wall decides too.
        XCTAssertEqual(try check(s, at: t0 + 1800 + 120).configAgeSeconds, 120)
    }
}
