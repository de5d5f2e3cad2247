import VersionGateCore

/// One HTTP exchange made in the fetch helper (docs/design.md, "The fetch
/// helper"): what the App Store lookup sends from the host, which itself
/// never loads libcurl. The request and the response cross the helper's
/// pipes as records; bodies as hex (no NUL may cross).
package struct HelperTransport: HTTPTransport {
    package init() {}

    package func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse {
        let helper: FetchHelper
        switch FetchHelper.located {
        case .failure(let failure): throw TransportError(kind: .unavailable, message: failure.message)
        case .success(let found): helper = found
        }
        switch helper.run(Self.message(request, limits), until: Deadline(afterMilliseconds: limits.timeoutMs)) {
        case .failure(let failure):
            throw TransportError(kind: failure.kind == .timeout ? .timeout : .unavailable, message: failure.message)
        case .success(let answer): return try Self.response(answer)
        }
    }

    static func message(_ request: HTTPRequest, _ limits: TransportLimits) -> HelperMessage {
        var message = HelperMessage()
        message.add("protocol", HelperService.protocolVersion)
        message.add("mode", "http")
        message.add("url", request.url)
        if let body = request.body { message.add("body", Hex.encoded(body)) }
        for header in request.headers { message.add("header", header.name + ": " + header.value) }
        if request.credentialsStayWithOrigin { message.add("credentials", "1") }
        message.add("timeout_ms", String(limits.timeoutMs))
        if let caFile = limits.caFile { message.add("ca_file", caFile) }
        return message
    }

    /// The helper's side: the request as the transport's own types.
    static func request(_ message: HelperMessage) -> (HTTPRequest, TransportLimits)? {
        guard let url = message.value("url"), let timeout = message.value("timeout_ms").flatMap({ Int64(decimal: $0) }),
              let timeoutMs = Int(exactly: timeout) else { return nil }
        var body: [UInt8]?
        if let hex = message.value("body") {
            guard let bytes = Hex.decoded(hex) else { return nil }
            body = bytes
        }
        let headers = message.values("header").map(Self.split)
        var limits = TransportLimits()
        limits.timeoutMs = timeoutMs
        limits.caFile = message.value("ca_file")
        return (HTTPRequest(url: url, body: body, headers: headers,
                            credentialsStayWithOrigin: message.value("credentials") == "1"), limits)
    }

    /// The helper's answer for a response or a transport error.
    static func answer(_ outcome: Result<HTTPResponse, TransportError>) -> HelperMessage {
        var answer = HelperMessage()
        switch outcome {
        case .success(let response):
            answer.add("outcome", "response")
            answer.add("status", String(response.status))
            answer.add("url", response.url)
            for header in response.headers { answer.add("header", header.name + ": " + header.value) }
            answer.add("body", Hex.encoded(response.body))
        case .failure(let error):
            answer.add("outcome", "failed")
            answer.add("kind", "\(error.kind)")
            answer.add("message", error.message)
        }
        return answer
    }

    private static func response(_ answer: HelperMessage) throws(TransportError) -> HTTPResponse {
        guard answer.value("outcome") == "response" else {
            let kinds: [TransportError.Kind] = [.timeout, .tooLarge, .tls, .resolve, .connect, .protocolError, .network,
                                                .refusedURL, .refusedRedirect, .tooManyRedirects, .unavailable]
            let kind = kinds.first { "\($0)" == answer.value("kind") } ?? .internalError
            throw TransportError(kind: kind, message: answer.value("message") ?? "the fetch helper failed")
        }
        guard let status = answer.value("status").flatMap({ Int64(decimal: $0) }).flatMap({ Int(exactly: $0) }),
              let body = answer.value("body").flatMap(Hex.decoded) else {
            throw TransportError(kind: .internalError, message: "the fetch helper's answer is malformed")
        }
        return HTTPResponse(status: status, headers: answer.values("header").map(Self.split), body: body,
                            url: answer.value("url") ?? "")
    }

    private static func split(_ line: String) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
    }
}
