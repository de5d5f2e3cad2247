/// One HTTP exchange, the seam every network source goes through. The
/// production implementation is CurlTransport; tests may swap it.
protocol HTTPTransport: Sendable {
    /// Sends `request`, following at most `limits.maxRedirects` redirects
    /// that pass the URL rules, and returns the final response whatever its
    /// status. Throws for everything that is not a complete response.
    func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse
}

struct HTTPRequest: Sendable {
    var url: String
    /// nil = GET; a body = POST.
    var body: [UInt8]?
    /// Extra request headers, e.g. ("If-None-Match", etag).
    var headers: [(name: String, value: String)] = []

    init(url: String, body: [UInt8]? = nil, headers: [(name: String, value: String)] = []) {
        self.url = url
        self.body = body
        self.headers = headers
    }
}

struct HTTPResponse: Sendable {
    let status: Int
    /// Header lines of the final response; names lower-cased, values trimmed.
    let headers: [(name: String, value: String)]
    /// Decoded (Content-Encoding removed), at most TransportLimits.maxBodyBytes.
    let body: [UInt8]
    /// Where the response came from, after redirects.
    let url: String

    /// The first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }
}

/// What one call may cost. SPEC §6 defaults.
struct TransportLimits: Sendable, Equatable {
    /// One total deadline: DNS, connect, TLS, every redirect and the body.
    var timeoutMs = 3000
    var maxBodyBytes = 1 << 20
    var maxHeaderBytes = 64 << 10
    var maxRedirects = 3
    /// Extra trust anchor (PEM file) instead of the system store; for tests
    /// and private deployments. Verification is never turned off.
    var caFile: String?
}
