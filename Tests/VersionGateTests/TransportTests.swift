import Foundation
import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// The hardened transport against the loopback server's hostile scenarios.
/// Every case asserts the outcome, the error kind, the time bound and that
/// no file descriptor or thread was left behind.
final class TransportTests: XCTestCase {
    private let transport = CurlTransport()

    private func limits(_ timeoutMs: Int = 3000, ca: String? = nil) -> TransportLimits {
        var limits = TransportLimits()
        limits.timeoutMs = timeoutMs
        limits.caFile = ca
        // The transport's own behaviour, no desktop asked: GIO's proxy
        // resolver keeps its threads in the process that asks it (the
        // helper, which then exits); the proxy's road is tested end to end
        // in Tests/python/test_desktop_proxy.py.
        limits.proxy = .none
        return limits
    }

    /// Runs `body`, returns its outcome and elapsed milliseconds, and checks
    /// that the process has as many fds and threads afterwards as before.
    private func measured(_ name: String, _ body: () throws(TransportError) -> HTTPResponse)
        -> (result: Result<HTTPResponse, TransportError>, ms: Double) {
        let before = ProcessCounts.now()
        let start = Deadline.nowNanoseconds()
        let result: Result<HTTPResponse, TransportError>
        do { result = .success(try body()) } catch { result = .failure(error) }
        let ms = Double(Deadline.nowNanoseconds() - start) / 1e6
        XCTAssertTrue(ProcessCounts.settles(to: before), "\(name): fds/threads leaked: \(before) → \(ProcessCounts.now())")
        return (result, ms)
    }

    private func expectFailure(_ name: String, _ kinds: Set<TransportError.Kind>, within ms: Double,
                               _ body: () throws(TransportError) -> HTTPResponse) {
        let (result, elapsed) = measured(name, body)
        switch result {
        case .success(let response):
            XCTFail("\(name): expected \(kinds), got HTTP \(response.status) with \(response.body.count) bytes")
        case .failure(let error):
            XCTAssertTrue(kinds.contains(error.kind), "\(name): expected \(kinds), got \(error.kind): \(error.message)")
            XCTAssertFalse(error.message.isEmpty)
        }
        XCTAssertLessThanOrEqual(elapsed, ms, "\(name) took \(elapsed) ms")
    }

    /// What libcurl hands over: status lines (one per response when
    /// redirected), CRLF or bare LF, names in any case, optional whitespace.
    func testResponseHeadersAreParsed() {
        let text = "HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\nHTTP/1.1 200 OK\r\nETag:\t\"v1\" \r\n"
            + "Cache-Control:max-age=60\nX-Empty:   \r\nX-Ünïcode: dé jà\r\nno colon here\r\nX-Colon: a:b\r\n\r\n"
        let parsed = CurlTransport.parseHeaders(text)
        XCTAssertEqual(parsed.map(\.name), ["location", "etag", "cache-control", "x-empty", "x-Ünïcode", "x-colon"])
        XCTAssertEqual(parsed.map(\.value), ["/x", "\"v1\"", "max-age=60", "", "dé jà", "a:b"])
        XCTAssertTrue(CurlTransport.parseHeaders("").isEmpty)
    }

    func testHealthyRequestsSucceed() throws {
        let server = try LoopbackServer(self)
        let (result, _) = measured("ok") { () throws(TransportError) in
            try transport.send(HTTPRequest(url: server.url("/ok")), limits: limits())
        }
        let response = try result.get()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "hello")
        XCTAssertEqual(response.header("Content-Type"), "text/plain")

        let echo = try transport.send(HTTPRequest(url: server.url("/echo"), body: Array("{\"a\":1}".utf8),
                                                  headers: [("If-None-Match", "\"etag-1\"")]), limits: limits())
        let object = try JSONSerialization.jsonObject(with: Data(echo.body)) as? [String: Any]
        XCTAssertEqual(object?["method"] as? String, "POST")
        XCTAssertEqual(object?["body"] as? String, "{\"a\":1}")
        XCTAssertEqual((object?["headers"] as? [String: String])?["if-none-match"], "\"etag-1\"")

        let status = try transport.send(HTTPRequest(url: server.url("/status/503?retry_after=7")), limits: limits())
        XCTAssertEqual(status.status, 503)
        XCTAssertEqual(status.header("retry-after"), "7")
    }

    func testStalledServersEndAtTheDeadline() throws {
        let server = try LoopbackServer(self)
        let silent = try LoopbackServer(self, arguments: ["--mode", "silent"])
        let tlsSilent = "https://127.0.0.1:\(silent.port)/"
        for deadline in [300, 3000] {
            // 10 % and a quarter second of slack for a loaded machine: a deadline
            // missed (counted twice, or not at all) still lands far beyond it.
            let bound = Double(deadline) * 1.1 + 250
            for (name, url) in [("never answers", server.url("/silent")), ("drip", server.url("/drip")),
                                ("slow headers", server.url("/slow-headers")), ("TLS never completes", tlsSilent),
                                ("accepts, never reads", silent.url("/"))] {
                let (result, elapsed) = measured(name) { () throws(TransportError) in
                    try transport.send(HTTPRequest(url: url), limits: limits(deadline))
                }
                if case .failure(let error) = result {
                    XCTAssertEqual(error.kind, .timeout, "\(name) @\(deadline): \(error.message)")
                    XCTAssertTrue(error.message.contains("\(deadline) ms"), error.message)
                } else {
                    XCTFail("\(name) @\(deadline) did not time out")
                }
                XCTAssertLessThanOrEqual(elapsed, bound, "\(name) @\(deadline) ms took \(elapsed) ms")
                XCTAssertGreaterThanOrEqual(elapsed, Double(deadline) - 5, "\(name) ended early")
            }
        }
    }

    func testRefusedAndUnresolvableConnectionsFailFast() throws {
        let port = try unusedPort()
        expectFailure("refused", [.connect], within: 100) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: "http://127.0.0.1:\(port)/"), limits: limits())
        }
        expectFailure("unresolvable", [.resolve, .timeout], within: 1000 * 1.1) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: "https://nonexistent.invalid/"), limits: limits(1000))
        }
    }

    func testBodiesAreCappedAfterDecoding() throws {
        let server = try LoopbackServer(self)
        for (name, path) in [("100 MB honest", "/big?bytes=100000000"), ("endless chunked", "/chunked-endless"),
                             ("gzip bomb", "/gzip-bomb")] {
            let baseline = PeakMemory.resetAndReadResident()
            expectFailure(name, [.tooLarge], within: 3300) { () throws(TransportError) in
                try transport.send(HTTPRequest(url: server.url(path)), limits: limits())
            }
            let peak = PeakMemory.peak()
            if let baseline, let peak {
                XCTAssertLessThanOrEqual(peak - baseline, (1 << 20) + (8 << 20), "\(name): peak RSS grew \(peak - baseline) bytes")
            } else {
                XCTFail("cannot read VmHWM/VmRSS from /proc/self/status")
            }
        }
        // A Content-Length that understates: the message ends where it says.
        let long = try transport.send(HTTPRequest(url: server.url("/length-long")), limits: limits())
        XCTAssertEqual(long.body.count, 10)
        // One that overstates: the peer closes early.
        expectFailure("length short", [.network], within: 3300) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: server.url("/length-short")), limits: limits())
        }
    }

    func testRedirectsArePolicedAndBounded() throws {
        let pki = try TestPKI.shared()
        let server = try LoopbackServer(self, tls: (pki.path("server.pem"), pki.path("server.key")))
        let plain = try LoopbackServer(self)
        let ca = pki.path("ca.pem")
        let targets = [plain.url("/ok"), "file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hi",
                       "https://user@127.0.0.1:\(server.port)/ok", "gopher://127.0.0.1/"]
        for target in targets {
            let path = "/redirect?to=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            expectFailure("redirect to \(target)", [.refusedRedirect], within: 3300) { () throws(TransportError) in
                try transport.send(HTTPRequest(url: server.url(path)), limits: limits(ca: ca))
            }
        }
        expectFailure("loop", [.tooManyRedirects], within: 3300) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: server.url("/loop")), limits: limits(ca: ca))
        }
        expectFailure("4 hops", [.tooManyRedirects], within: 3300) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: server.url("/hops/4")), limits: limits(ca: ca))
        }
        let three = try transport.send(HTTPRequest(url: server.url("/hops/3")), limits: limits(ca: ca))
        XCTAssertEqual(String(decoding: three.body, as: UTF8.self), "arrived")
        XCTAssertTrue(three.url.hasSuffix("/hops/0"))
        // A plain-http server may not send us to https either: the scheme is kept.
        expectFailure("http to https", [.refusedRedirect], within: 3300) { () throws(TransportError) in
            let to = server.url("/ok").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return try transport.send(HTTPRequest(url: plain.url("/redirect?to=" + to)), limits: limits(ca: ca))
        }
    }

    func testTLSIsAlwaysVerified() throws {
        let pki = try TestPKI.shared()
        let ca = pki.path("ca.pem")
        let good = try LoopbackServer(self, tls: (pki.path("server.pem"), pki.path("server.key")))
        XCTAssertEqual(try transport.send(HTTPRequest(url: good.url("/ok")), limits: limits(ca: ca)).status, 200)
        expectFailure("system store does not know the test CA", [.tls], within: 3300) { () throws(TransportError) in
            try transport.send(HTTPRequest(url: good.url("/ok")), limits: limits())
        }
        for name in ["untrusted", "wronghost", "expired"] {
            let server = try LoopbackServer(self, tls: (pki.path("\(name).pem"), pki.path("\(name).key")))
            expectFailure(name, [.tls], within: 3300) { () throws(TransportError) in
                try transport.send(HTTPRequest(url: server.url("/ok")), limits: limits(ca: ca))
            }
        }
    }

    func testBrokenPeersFailCleanly() throws {
        let server = try LoopbackServer(self)
        for (name, path, kinds) in [
            ("garbage", "/garbage", Set<TransportError.Kind>([.protocolError, .network])),
            ("HTTP/0.9", "/http09", [.protocolError, .network]),
            ("1 MB header", "/huge-header", [.protocolError, .tooLarge]),
            ("reset mid-body", "/reset-mid-body", [.network]),
        ] {
            expectFailure(name, kinds, within: 3300) { () throws(TransportError) in
                try transport.send(HTTPRequest(url: server.url(path)), limits: limits())
            }
        }
    }

    func testURLRulesRefuseBeforeAnyRequest() throws {
        for url in ["http://example.com/", "http://localhost/", "ftp://127.0.0.1/", "file:///etc/passwd",
                    "https://user:pw@example.com/", "https:///path", "https://exa mple.com/", "example.com",
                    "https://example.com:99999/", "https://[::1/"] {
            XCTAssertThrowsError(try transport.send(HTTPRequest(url: url), limits: limits()), url) { error in
                XCTAssertEqual((error as? TransportError)?.kind, .refusedURL, url)
            }
        }
    }

    func testManyThreadsAtOnce() throws {
        let server = try LoopbackServer(self)
        let url = server.url("/ok")
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                let ok = (try? CurlTransport().send(HTTPRequest(url: url), limits: TransportLimits()))?.status == 200
                if !ok { failures.add() }
            }
        }
        XCTAssertEqual(failures.value, 0)
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

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
