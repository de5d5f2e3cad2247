import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateNetwork

/// CurlTransport.stream against the loopback server: chunks as they come,
/// the caller's stop, the bounds (time and bytes), a failed status's body,
/// connection failures. Every exchange is bounded by its maxSeconds (and
/// the server by its own --max-seconds); each test asserts its time too.
final class StreamingTransportTests: XCTestCase {
    private let transport = CurlTransport()

    private func limits(_ timeoutMs: Int = 3000, maxBodyBytes: Int = 1 << 20) -> TransportLimits {
        var limits = TransportLimits()
        limits.timeoutMs = timeoutMs
        limits.maxBodyBytes = maxBodyBytes
        limits.proxy = .none         // no desktop asked (see TransportTests)
        return limits
    }

    private func milliseconds(since start: Int64) -> Double {
        Double(Deadline.nowNanoseconds() - start) / 1e6
    }

    /// A POST's chunked 200: every message, in order, each as it is sent
    /// (300 ms apart), long before the response ends; the body was sent.
    func testChunksArriveInOrderAsTheyAreSent() throws {
        let server = try LoopbackServer(self)
        let request = HTTPRequest(url: server.url("/stream-post?n=4&gap_ms=300"), body: Array("{\"project\":1}".utf8),
                                  headers: [("Content-Type", "application/json")])
        let start = Deadline.nowNanoseconds()
        var received: [UInt8] = [], lineTimes: [Double] = [], statuses: Set<Int> = []
        let response = try transport.stream(request, limits: limits(), maxSeconds: 10) { status, bytes in
            statuses.insert(status)
            received.append(contentsOf: bytes)
            let lines = received.filter { $0 == UInt8(ascii: "\n") }.count
            while lineTimes.count < lines { lineTimes.append(milliseconds(since: start)) }
            return true
        }
        let total = milliseconds(since: start)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("content-type"), "application/json")
        XCTAssertTrue(response.body.isEmpty, "a 2xx's body goes to the closure only")
        XCTAssertEqual(statuses, [200])
        let messages = String(decoding: received, as: UTF8.self).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        XCTAssertEqual(messages.map { $0?["seq"] as? Int }, [0, 1, 2, 3])
        XCTAssertEqual(messages.map { $0?["method"] as? String }, Array(repeating: "POST", count: 4))
        XCTAssertEqual(messages.map { $0?["body_bytes"] as? Int }, Array(repeating: 13, count: 4))
        XCTAssertEqual(lineTimes.count, 4)
        if lineTimes.count == 4 {
            XCTAssertLessThan(lineTimes[0] + 600, total, "the first message waited for the end: \(lineTimes), \(total)")
            for i in 1..<4 {
                XCTAssertGreaterThanOrEqual(lineTimes[i] - lineTimes[0], Double(i) * 300 - 60, "\(lineTimes)")
            }
        }
        XCTAssertLessThan(total, 5000)
    }

    /// /drip promises 1 MB at a byte per 500 ms (days): its first bytes are
    /// seen within a second or two, and false ends it there.
    func testFirstBytesComeLongBeforeTheEnd() throws {
        let server = try LoopbackServer(self)
        let start = Deadline.nowNanoseconds()
        var seen = 0, calls = 0
        let response = try transport.stream(HTTPRequest(url: server.url("/drip")), limits: limits(maxBodyBytes: 2 << 20),
                                            maxSeconds: 10) { _, bytes in
            calls += 1
            seen += bytes.count
            return seen < 2
        }
        let elapsed = milliseconds(since: start)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(seen, 2)
        XCTAssertEqual(calls, 2, "no chunk after the stop")
        XCTAssertLessThan(elapsed, 2500)
    }

    /// False from the closure stops an endless chunked stream at once: no
    /// further call, no error, no waiting for maxSeconds.
    func testStopEndsAnEndlessStreamPromptly() throws {
        let server = try LoopbackServer(self)
        let before = ProcessCounts.now()
        let start = Deadline.nowNanoseconds()
        var calls = 0
        let response = try transport.stream(HTTPRequest(url: server.url("/chunked-endless")), limits: limits(),
                                            maxSeconds: 30) { status, _ in
            XCTAssertEqual(status, 200)
            calls += 1
            return calls < 3
        }
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.body.isEmpty)
        XCTAssertEqual(calls, 3)
        XCTAssertLessThan(milliseconds(since: start), 1500)
        XCTAssertTrue(ProcessCounts.settles(to: before), "fds/threads leaked: \(before) → \(ProcessCounts.now())")
    }

    /// maxSeconds ends a stream that never ends nor stops: a timeout, after
    /// the chunks that came; <= 0 is a timeout before any request.
    func testMaxSecondsBoundsTheStream() throws {
        let server = try LoopbackServer(self)
        let start = Deadline.nowNanoseconds()
        var seen = 0
        XCTAssertThrowsError(try transport.stream(HTTPRequest(url: server.url("/drip")),
                                                  limits: limits(maxBodyBytes: 2 << 20), maxSeconds: 1) { _, bytes in
            seen += bytes.count
            return true
        }) { error in
            XCTAssertEqual((error as? TransportError)?.kind, .timeout, "\(error)")
            XCTAssertTrue((error as? TransportError)?.message.contains("1000 ms in all") == true, "\(error)")
        }
        let elapsed = milliseconds(since: start)
        XCTAssertGreaterThanOrEqual(elapsed, 995)
        XCTAssertLessThan(elapsed, 1600)
        XCTAssertGreaterThanOrEqual(seen, 1, "the drip's first byte came at 500 ms")

        for maxSeconds in [0, -5, Int.min] {
            var called = false
            XCTAssertThrowsError(try transport.stream(HTTPRequest(url: server.url("/ok")), limits: limits(),
                                                      maxSeconds: maxSeconds) { _, _ in called = true; return true }) {
                XCTAssertEqual(($0 as? TransportError)?.kind, .timeout, "\(maxSeconds): \($0)")
            }
            XCTAssertFalse(called)
        }
    }

    /// maxBodyBytes counts every streamed byte: an endless stream the
    /// caller never stops ends as too large, having delivered at most that.
    func testTheByteCapCoversTheWholeStream() throws {
        let server = try LoopbackServer(self)
        let start = Deadline.nowNanoseconds()
        var seen = 0
        XCTAssertThrowsError(try transport.stream(HTTPRequest(url: server.url("/chunked-endless")),
                                                  limits: limits(maxBodyBytes: 300_000), maxSeconds: 10) { _, bytes in
            seen += bytes.count
            return true
        }) { error in
            XCTAssertEqual((error as? TransportError)?.kind, .tooLarge, "\(error)")
        }
        XCTAssertGreaterThan(seen, 200_000)
        XCTAssertLessThanOrEqual(seen, 300_000)
        XCTAssertLessThan(milliseconds(since: start), 5000)
    }

    /// A status that is not 2xx is an answer, not a stream: its body comes
    /// back in the response and the closure is never called; a redirect is
    /// returned, not followed.
    func testOtherStatusesReturnTheirBody() throws {
        let server = try LoopbackServer(self)
        var called = false
        let unavailable = try transport.stream(HTTPRequest(url: server.url("/status/503?retry_after=7"), body: []),
                                               limits: limits(), maxSeconds: 10) { _, _ in called = true; return true }
        XCTAssertEqual(unavailable.status, 503)
        XCTAssertEqual(String(decoding: unavailable.body, as: UTF8.self), "status 503\n")
        XCTAssertEqual(unavailable.header("retry-after"), "7")

        let target = server.url("/ok")
        let redirect = try transport.stream(HTTPRequest(url: server.url("/redirect?to=\(target)&code=302")),
                                            limits: limits(), maxSeconds: 10) { _, _ in called = true; return true }
        XCTAssertEqual(redirect.status, 302)
        XCTAssertEqual(redirect.header("location"), target)
        XCTAssertEqual(String(decoding: redirect.body, as: UTF8.self), "redirect\n")
        XCTAssertFalse(called)
    }

    /// Connection failures throw as send's do, and the URL rules apply
    /// before any connection.
    func testFailuresThrow() throws {
        let start = Deadline.nowNanoseconds()
        var called = false
        XCTAssertThrowsError(try transport.stream(HTTPRequest(url: "http://127.0.0.1:\(try unusedPort())/"),
                                                  limits: limits(), maxSeconds: 10) { _, _ in called = true; return true }) {
            XCTAssertEqual(($0 as? TransportError)?.kind, .connect, "\($0)")
        }
        XCTAssertLessThan(milliseconds(since: start), 1000)
        for url in ["http://example.com/", "ftp://127.0.0.1/"] {
            XCTAssertThrowsError(try transport.stream(HTTPRequest(url: url), limits: limits(),
                                                      maxSeconds: 10) { _, _ in called = true; return true }) {
                XCTAssertEqual(($0 as? TransportError)?.kind, .refusedURL, "\(url): \($0)")
            }
        }
        XCTAssertFalse(called)

        // A server that never answers: only maxSeconds ends the wait (the
        // connect bound is met at once).
        let server = try LoopbackServer(self)
        let silentStart = Deadline.nowNanoseconds()
        XCTAssertThrowsError(try transport.stream(HTTPRequest(url: server.url("/silent")), limits: limits(300),
                                                  maxSeconds: 1) { _, _ in called = true; return true }) {
            XCTAssertEqual(($0 as? TransportError)?.kind, .timeout, "\($0)")
        }
        let silent = milliseconds(since: silentStart)
        XCTAssertGreaterThanOrEqual(silent, 995)
        XCTAssertLessThan(silent, 1600)
    }

    private func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
