import XCTest
@testable import VersionGateCore

/// A channel's cache entry (docs/design.md, "Asking the channel"): what an
/// exchange makes of it, and what a file must be to count.
final class ChannelEntryTests: XCTestCase {
    private let question = ChannelQuestion.appStore(bundleID: "a.b", country: "us")
    private let body = Array(#"{"results":[{"bundleId":"a.b","trackId":42,"version":"2.1"}]}"#.utf8)
    private var random = SystemRandomNumberGenerator()

    private func empty() -> ChannelEntry { ChannelEntry(key: "k", architecture: "amd64") }

    func testA200KeepsTheVersionTheTrackIDAndTheValidators() {
        let entry = empty().answered(status: 200, body: body, etag: "\"e\"", lastModified: "Sat, 05 Dec 2026 10:00:00 GMT",
                                     retryAfterSeconds: nil, question: question, now: 1000, random: &random)
        XCTAssertEqual([entry.served, entry.etag, entry.lastModified], ["2.1", "\"e\"", "Sat, 05 Dec 2026 10:00:00 GMT"])
        XCTAssertEqual(entry.trackID, 42)
        XCTAssertEqual(entry.age(at: 1010), 10)
        XCTAssertNil(entry.backoff)
        XCTAssertEqual(ChannelEntry.decode(entry.encoded(), key: "k", architecture: "amd64"), entry)
    }

    func testA304ConfirmsTheAnswerAndAFailureKeepsIt() {
        let known = empty().answered(status: 200, body: body, etag: "\"e\"", lastModified: nil, retryAfterSeconds: nil,
                                     question: question, now: 1000, random: &random)
        let confirmed = known.answered(status: 304, body: [], etag: nil, lastModified: nil, retryAfterSeconds: nil,
                                       question: question, now: 5000, random: &random)
        XCTAssertEqual(confirmed.served, "2.1")
        XCTAssertEqual(confirmed.confirmedAt, 5000)
        XCTAssertEqual(confirmed.etag, "\"e\"")

        let throttled = confirmed.answered(status: 429, body: [], etag: nil, lastModified: nil, retryAfterSeconds: 3600,
                                           question: question, now: 6000, random: &random)
        XCTAssertEqual(throttled.served, "2.1")
        XCTAssertEqual(throttled.backoffSeconds(at: 6000), 3600)
        XCTAssertEqual(throttled.problem, "HTTP 429")

        // Retry-After counts on 429 and 503 only; other errors back off 60-180 s, then longer.
        let failed = confirmed.answered(status: 500, body: [], etag: nil, lastModified: nil, retryAfterSeconds: 3600,
                                        question: question, now: 6000, random: &random)
        XCTAssertTrue((60...180).contains(failed.backoffSeconds(at: 6000) ?? 0), "\(String(describing: failed.backoff))")
        let again = failed.failed("timeout", retryAfterSeconds: nil, now: 6000, random: &random)
        XCTAssertEqual(again.backoff?.failures, 2)
        XCTAssertTrue((120...360).contains(again.backoffSeconds(at: 6000) ?? 0))

        // A 304 with nothing known is not an answer; a 200 without a version neither.
        XCTAssertNil(empty().answered(status: 304, body: [], etag: nil, lastModified: nil, retryAfterSeconds: nil,
                                      question: question, now: 1, random: &random).served)
        let noVersion = known.answered(status: 200, body: Array("{}".utf8), etag: nil, lastModified: nil,
                                       retryAfterSeconds: nil, question: question, now: 7000, random: &random)
        XCTAssertEqual(noVersion.served, "2.1")
        XCTAssertNotNil(noVersion.backoff)
    }

    func testOnlyAWholeEntryOfThisQuestionAndMachineCounts() {
        var entry = empty()
        (entry.served, entry.confirmedAt, entry.trackID) = ("1.0", 7, 9)
        entry.backoff = Backoff(until: 99, failures: 2)
        let bytes = entry.encoded()
        XCTAssertEqual(ChannelEntry.decode(bytes, key: "k", architecture: "amd64"), entry)
        XCTAssertNil(ChannelEntry.decode(bytes, key: "other", architecture: "amd64"))
        XCTAssertNil(ChannelEntry.decode(bytes, key: "k", architecture: "arm64"))
        for cut in [1, bytes.count / 2, bytes.count - 1] {
            XCTAssertNil(ChannelEntry.decode(Array(bytes.prefix(cut)), key: "k", architecture: "amd64"))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        for spoilt in [text.replacingOccurrences(of: "\"format\":1", with: "\"format\":2"),
                       text.replacingOccurrences(of: "\"7\"", with: "7"),
                       text.replacingOccurrences(of: "\"9\"", with: "\"0\""),
                       text.replacingOccurrences(of: "\"2\"", with: "\"33\""),
                       text.replacingOccurrences(of: ",\"confirmed_at\":\"7\"", with: ""),
                       text.replacingOccurrences(of: "\"failures\":\"2\",", with: "")] {
            XCTAssertNotEqual(spoilt, text)
            XCTAssertNil(ChannelEntry.decode(Array(spoilt.utf8), key: "k", architecture: "amd64"), spoilt)
        }
        XCTAssertNil(ChannelEntry.decode(Array(repeating: 0x20, count: ChannelEntry.maxBytes + 1) + bytes,
                                         key: "k", architecture: "amd64"))
    }
}
