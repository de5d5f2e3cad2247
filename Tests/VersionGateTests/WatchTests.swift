import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateNetwork

/// The pure parts of watching (docs/design.md, "Watching a source"): the
/// watch request's wire form, the realtime stream's messages from chunks
/// cut anywhere, and the SDKs' reconnect pacing.
final class WatchTests: XCTestCase {
    private func roundTrip(_ request: HelperRequest) throws -> HelperRequest {
        let message = try XCTUnwrap(HelperMessage.decode(request.message().encoded()))
        return try HelperRequest.decode(message).get()
    }

    func testAWatchSurvivesItsWireForm() throws {
        let file = HelperRequest.Watch(file: "/usr/share/app/gate.json", fetch: nil, intervalSeconds: 300,
                                       realtimeEndpoint: "https://rt.example", hostPID: 4242, lockPath: nil)
        guard case .watch(let fileBack) = try roundTrip(.watch(file)) else { return XCTFail("not a watch") }
        XCTAssertEqual(fileBack, file)

        var fetch = HelperRequest.ConfigFetch(mode: .refresh, remote: .document(url: "https://x.example/g.json", trustedKeys: nil),
                                              previous: .init(etag: "\"v1\"", templateVersion: 7, signatureTimestamp: nil,
                                                              identity: nil),
                                              backoff: nil, appVersion: "1.0", languageCode: "de", limits: TransportLimits(),
                                              now: 1_800_000_000, boot: nil, deadlineNanoseconds: 5, cacheHome: "/c",
                                              stateHome: "/s")
        fetch.environment = ["https_proxy": "http://127.0.0.1:3128"]
        let remote = HelperRequest.Watch(file: nil, fetch: fetch, intervalSeconds: 60, realtimeEndpoint: "https://rt.example",
                                         hostPID: 7, lockPath: "/c/versiongate/lock-watch-1")
        guard case .watch(let remoteBack) = try roundTrip(.watch(remote)) else { return XCTFail("not a watch") }
        XCTAssertEqual(remoteBack, remote)
    }

    func testAMalformedWatchIsRefused() throws {
        func refused(_ records: [(String, String)]) -> Bool {
            var message = HelperMessage()
            message.add("protocol", HelperRequest.protocolVersion)
            message.add("mode", "watch")
            for (name, value) in records { message.add(name, value) }
            if case .failure = HelperRequest.decode(message) { return true }
            return false
        }
        let base = [("interval_s", "300"), ("realtime", "https://rt.example"), ("host_pid", "5")]
        XCTAssertFalse(refused(base + [("watch_file", "/g.json")]), "control: a well-formed watch")
        XCTAssertTrue(refused(base), "neither a file nor a fetch")
        XCTAssertTrue(refused([("interval_s", "0"), ("realtime", "x"), ("host_pid", "5"), ("watch_file", "/g")]))
        XCTAssertTrue(refused([("interval_s", "300"), ("realtime", "x"), ("host_pid", "0"), ("watch_file", "/g")]))
        XCTAssertTrue(refused(base + [("watch_file", "/g"), ("watch_fetch", "refresh")]), "a fetch that does not parse")
    }

    private func messages(_ chunks: [String], into assembler: inout RealtimeMessages) -> [JSONValue] {
        chunks.flatMap { chunk in Array(chunk.utf8).withUnsafeBytes { assembler.add($0) } }
    }

    func testMessagesAreReadFromChunksCutAnywhere() {
        var assembler = RealtimeMessages()
        XCTAssertFalse(assembler.answered)
        let got = messages(["{\"latestTemplate", "VersionNumber\": \"12\"}\n{\"retryInterval", "Seconds\": 5}",
                            "\n junk } {\"featureDisabled\": true}{not json}"], into: &assembler)
        XCTAssertTrue(assembler.answered)
        XCTAssertEqual(got.count, 3)
        XCTAssertEqual(got.first?["latestTemplateVersionNumber"], .string("12"))
        XCTAssertEqual(got.dropFirst().first?["retryIntervalSeconds"], .number(5))
        XCTAssertEqual(got.last?["featureDisabled"], .bool(true))
    }

    func testAStreamWithNoEndToAMessageIsNotKeptForever() {
        var assembler = RealtimeMessages()
        let open = "{" + String(repeating: "x", count: RealtimeMessages.maxPendingBytes)
        XCTAssertEqual(messages([open], into: &assembler).count, 0)
        XCTAssertEqual(messages(["\"a\": 1}", "{\"b\": 2}"], into: &assembler).count, 1,
                       "only the message after the dropped bytes")
    }

    func testReconnectsArePacedAsTheSDKsPaceThem() {
        var pacing = RealtimePacing()
        XCTAssertTrue(pacing.mayAttempt())
        XCTAssertTrue(pacing.ended(status: 200))
        XCTAssertLessThanOrEqual(pacing.millisecondsToNextAttempt(), 0, "a stream that ended well is opened again at once")

        pacing.retry(afterSeconds: 30)
        XCTAssertTrue(pacing.ended(status: 200))
        XCTAssertGreaterThan(pacing.millisecondsToNextAttempt(), 29_000, "retryIntervalSeconds holds after a good stream")

        for status in [408, 429, 502, 503, 504] {
            var failing = RealtimePacing()
            _ = failing.mayAttempt()
            XCTAssertTrue(failing.ended(status: status), "\(status) is retried")
            XCTAssertTrue((59_000...181_000).contains(failing.millisecondsToNextAttempt()), "\(status): one minute doubled, ±50 %")
        }
        var failing = RealtimePacing()
        XCTAssertTrue(failing.ended(status: nil), "no answer at all is retried")
        for status in [400, 403, 404, 500] {
            var refused = RealtimePacing()
            XCTAssertFalse(refused.ended(status: status), "\(status) ends realtime")
        }

        var exhausted = RealtimePacing()
        for _ in 0..<RealtimePacing.attempts {
            XCTAssertTrue(exhausted.mayAttempt())
            _ = exhausted.ended(status: 503)
        }
        XCTAssertFalse(exhausted.mayAttempt(), "eight attempts without a 200, then no more")
        XCTAssertEqual(RealtimePacing.backoffMilliseconds(failures: 40), 4 * 3600 * 1000, "at most four hours")
        for failures in 1...6 {
            let base = 60_000 * Double(1 << failures)
            XCTAssertTrue((base * 0.5...min(base * 1.5, 4 * 3600 * 1000)).contains(Double(RealtimePacing.backoffMilliseconds(failures: failures))))
        }
    }
}
