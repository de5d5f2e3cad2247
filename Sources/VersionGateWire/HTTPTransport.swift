import VersionGateCore
/// One HTTP exchange, the seam every network source goes through. The
/// production implementation is CurlTransport; tests may swap it.
package protocol HTTPTransport: Sendable {
    /// Sends `request`, following at most `limits.maxRedirects` redirects
    /// that pass the URL rules, and returns the final response whatever its
    /// status. Throws for everything that is not a complete response.
    func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse
}

package struct HTTPRequest: Sendable {
    package var url: String
    /// nil = GET; a body = POST.
    package var body: [UInt8]?
    /// Extra request headers, e.g. ("If-None-Match", etag).
    package var headers: [(name: String, value: String)] = []
    /// The request carries credentials (an API key, a token, a registration
    /// body): a redirect to another origin is refused rather than followed,
    /// so they never reach a host they were not meant for.
    package var credentialsStayWithOrigin = false

    package init(url: String, body: [UInt8]? = nil, headers: [(name: String, value: String)] = [],
                 credentialsStayWithOrigin: Bool = false) {
        self.url = url
        self.body = body
        self.headers = headers
        self.credentialsStayWithOrigin = credentialsStayWithOrigin
    }
}

package struct HTTPResponse: Sendable {
    package let status: Int
    /// Header lines of the final response; names lower-cased, values trimmed.
    package let headers: [(name: String, value: String)]
    /// Decoded (Content-Encoding removed), at most TransportLimits.maxBodyBytes.
    package let body: [UInt8]
    /// Where the response came from, after redirects.
    package let url: String

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8], url: String) {
        (self.status, self.headers, self.body, self.url) = (status, headers, body, url)
    }

    /// The first header named `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }
}

/// What one call may cost; the defaults of docs/design.md, "Deadlines and limits".
package struct TransportLimits: Sendable, Equatable {
    /// One total deadline: DNS, connect, TLS, every redirect and the body.
    package var timeoutMs = 3000
    package var maxBodyBytes = 1 << 20
    package var maxHeaderBytes = 64 << 10
    package var maxRedirects = 3
    /// Extra trust anchor (PEM file) instead of the system store; for tests
    /// and private deployments. Verification is never turned off.
    package var caFile: String?
    /// The option `proxy` (docs/design.md, "The desktop's proxy").
    package var proxy = ProxyRules.Setting.auto

    package init() {}
}
