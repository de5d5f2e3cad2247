import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// Credentials never follow a redirect to another origin: Firebase fetches
/// and Installations calls (API key, tokens, the registration body) refuse
/// it, while a plain document GET may still follow one (CDNs do that).
/// Refused rather than stripped: Google's endpoints never redirect across
/// hosts, and a POST whose body was dropped would be a different request.
final class CredentialsStayWithOriginTests: XCTestCase {
    private func get(_ first: LoopbackServer, credentials: Bool) throws -> Result<HTTPResponse, TransportError> {
        // A GET (the document route takes no POST); the rule does not look at the method.
        let request = HTTPRequest(url: first.url("/doc/moved"),
                                  headers: [(name: "x-goog-api-key", value: "AIza-secret")],
                                  credentialsStayWithOrigin: credentials)
        return Result { () throws(TransportError) in try CurlTransport().send(request, limits: TransportLimits()) }
    }

    private func redirect(_ first: LoopbackServer, to second: LoopbackServer) throws {
        let command: [String: Any] = ["name": "moved", "body": "{}",
                                      "next": [["status": 307, "headers": ["Location": second.url("/doc/elsewhere")]]]]
        let response = try CurlTransport().send(HTTPRequest(url: first.url("/__document"),
                                                            body: Array(try JSONSerialization.data(withJSONObject: command))),
                                                limits: TransportLimits())
        XCTAssertEqual(response.status, 200)
    }

    private func hits(_ server: LoopbackServer) throws -> [[String: Any]] {
        try server.requests().filter { ($0["path"] as? String) == "/doc/elsewhere" }
    }

    func testACrossOriginRedirectOfCredentialsIsRefusedAndTheOtherHostSeesNothing() throws {
        let first = try LoopbackServer(self), second = try LoopbackServer(self)
        try redirect(first, to: second)
        guard case .failure(let error) = try get(first, credentials: true) else {
            return XCTFail("the redirect was followed")
        }
        XCTAssertEqual(error.kind, .refusedRedirect)
        XCTAssertTrue(error.message.contains("carries credentials"), error.message)
        XCTAssertEqual(try hits(second).count, 0, "the second host received the request")
    }

    /// The control: without credentials the same redirect is followed,
    /// headers with it (307), which is what must never happen to a key.
    func testWithoutCredentialsTheRedirectIsFollowed() throws {
        let first = try LoopbackServer(self), second = try LoopbackServer(self)
        try redirect(first, to: second)
        _ = try get(first, credentials: false)
        let seen = try hits(second)
        XCTAssertEqual(seen.count, 1)
        let headers = seen.first?["headers"] as? [String: Any]
        XCTAssertEqual(headers?["x-goog-api-key"] as? String, "AIza-secret")
    }

    func testTheFirebaseFetcherAndInstallationsAskForIt() {
        var seen: [HTTPRequest] = []
        let recorder = RecordingTransport { seen.append($0) }
        let fetcher = FirebaseFetcher(projectID: "vg-test", apiKey: "AIza-secret", appID: "1:2:web:3",
                                      packageName: nil, endpoint: "http://127.0.0.1:9",
                                      installationsEndpoint: "http://127.0.0.1:9")
        let state = PrivateDirectory(base: NSTemporaryDirectory() + "vg-origin-\(UUID().uuidString)", files: POSIXFiles())
        defer { state.map { try? FileManager.default.removeItem(atPath: $0.path) } }
        let context = FetchContext(previousETag: nil, appVersion: "1.0", languageCode: "en", transport: recorder,
                                   limits: TransportLimits(), deadline: Deadline(afterMilliseconds: 1000), state: state,
                                   now: 1_700_000_000, device: DeviceFacts())
        _ = try? fetcher.fetch(context)
        XCTAssertGreaterThanOrEqual(seen.count, 2, "registration and fetch")
        XCTAssertTrue(seen.allSatisfy(\.credentialsStayWithOrigin), seen.map(\.url).joined(separator: ", "))
    }
}

/// Records each request and answers none (a network that is down).
private final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let record: (HTTPRequest) -> Void
    init(_ record: @escaping (HTTPRequest) -> Void) { self.record = record }
    func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse {
        record(request)
        throw TransportError(kind: .connect, message: "down")
    }
}
