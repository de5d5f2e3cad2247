import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import CurlShim
import PortalShim
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// HTTPTransport over libcurl (loaded on first use by the C shim). libcurl
/// moves the bytes; the deadline, caps, URL rules and redirect policy are
/// enforced here and in the shim, not left to defaults.
package struct CurlTransport: HTTPTransport {
    package func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse {
        let deadline = Deadline(afterMilliseconds: limits.timeoutMs)
        var url = request.url
        var current = try TransportURL.check(url).get()
        var body = request.body
        var hops = 0
        while true {
            let remaining = deadline.remainingMilliseconds
            guard remaining > 0 else {
                throw TransportError(kind: .timeout, message: "\(OneLine.quoted(request.url)): timed out after \(limits.timeoutMs) ms")
            }
            let exchange = try perform(url: url, body: body, headers: request.headers, timeoutMs: remaining,
                                       limits: limits, originalURL: request.url)
            guard (300...399).contains(exchange.status), let location = exchange.redirectURL else {
                return HTTPResponse(status: exchange.status, headers: exchange.headers, body: exchange.body, url: url)
            }
            hops += 1
            guard hops <= limits.maxRedirects else {
                throw TransportError(kind: .tooManyRedirects,
                    message: "\(OneLine.quoted(request.url)): more than \(limits.maxRedirects) redirects")
            }
            let next = try TransportURL.checkRedirect(from: current, to: location).get()
            if request.credentialsStayWithOrigin && !next.isSameOrigin(current) {
                throw TransportError(kind: .refusedRedirect, message: "redirect to \(OneLine.quoted(location)) refused: "
                                     + "it leaves \(current.host) and the request carries credentials")
            }
            current = next
            // 307/308 repeat the request as it was; the others become a GET.
            if exchange.status != 307 && exchange.status != 308 { body = nil }
            url = location
        }
    }

    /// One exchange with a local daemon over its unix socket (snapd's,
    /// docs/design.md, "Updating a snap"): HTTP/1.1, never a proxy, no
    /// redirect followed; the URL's host is only the Host header.
    package func send(_ request: HTTPRequest, overSocket socket: String,
                      limits: TransportLimits) throws(TransportError) -> HTTPResponse {
        let exchange = try perform(url: request.url, body: request.body, headers: request.headers,
                                   timeoutMs: limits.timeoutMs, limits: limits, originalURL: request.url,
                                   unixSocket: socket)
        return HTTPResponse(status: exchange.status, headers: exchange.headers, body: exchange.body, url: request.url)
    }

    struct Exchange {
        package let status: Int
        package let headers: [(name: String, value: String)]
        package let body: [UInt8]
        package let redirectURL: String?
        /// A stream's receiver said stop (StreamingExchange.swift).
        package let stopped: Bool
    }

    /// A streaming exchange's part of `perform` (StreamingExchange.swift):
    /// the body goes to `sink` with `context`, `maxMs` bounds the whole
    /// exchange and `timeoutMs` only the connection.
    struct StreamHook {
        let sink: vgh_chunk_sink
        let context: UnsafeMutableRawPointer
        let maxMs: Int
    }

    func perform(url: String, body: [UInt8]?, headers: [(name: String, value: String)], timeoutMs: Int,
                 limits: TransportLimits, originalURL: String,
                 unixSocket: String? = nil, stream: StreamHook? = nil) throws(TransportError) -> Exchange {
        var response = vgh_response()
        let lines = headers.map { "\($0.name): \($0.value)" }
        let route = unixSocket == nil ? Self.route(for: url, limits.proxy) : nil
        let outcome: vgh_outcome = withCStrings(lines) { headerPointers in
            (route?.proxy ?? "").withCString { proxy in
            withOptionalCString(limits.caFile) { caFile in
            withOptionalCString(unixSocket) { socket in
                (body ?? []).withUnsafeBytes { bodyBytes in
                    url.withCString { urlPointer in
                        var request = vgh_request()
                        request.url = urlPointer
                        request.post = body == nil ? 0 : 1
                        request.headers = headerPointers.baseAddress
                        request.header_count = headerPointers.count
                        request.body = bodyBytes.baseAddress
                        request.body_length = bodyBytes.count
                        request.timeout_ms = timeoutMs
                        request.max_body_bytes = limits.maxBodyBytes
                        request.max_header_bytes = limits.maxHeaderBytes
                        request.ca_file = caFile
                        request.proxy = proxy
                        request.unix_socket = socket
                        request.on_chunk = stream?.sink
                        request.chunk_context = stream?.context
                        request.max_stream_ms = stream?.maxMs ?? 0
                        return vgh_perform(&request, &response)
                    }
                }
            }
            }
            }
        }
        defer { vgh_response_release(&response) }

        guard outcome == VGH_OK else {
            throw TransportError(kind: Self.kind(of: outcome),
                                 message: Self.describe(outcome, url: url, original: originalURL, limits: limits,
                                                        streamMs: stream?.maxMs, detail: Self.message(of: &response)))
        }
        let bodyBytes = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
        let headerText = response.headers.map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_length), as: UTF8.self)
        } ?? ""
        return Exchange(status: response.status, headers: Self.parseHeaders(headerText), body: bodyBytes,
                        redirectURL: response.redirect_url.map { String(cString: $0) }, stopped: response.stopped != 0)
    }

    // MARK: The proxy (docs/design.md, "The desktop's proxy")

    /// The last request's route, "direct" or "scheme://host:port from
    /// ORIGIN" (credentials hidden): the helper's answer carries it.
    package static var lastRoute: String? { route.withLock { $0 } }
    private static let route = Mutex<String?>(nil)
    /// Set once by the helper before it serves: only there is the desktop
    /// asked (GIO stays out of every other process) and the route kept (one
    /// thread makes the helper's requests; other processes' threads share
    /// nothing here).
    package static let inHelper = Atomic<Bool>(false)
    /// The desktop's answer per scheme, host and port: asked once per process.
    private static let desktopAnswers = Mutex<[String: String]>([:])

    /// The proxy for `url` (nil: direct), recorded as the last route.
    private static func route(for url: String, _ setting: ProxyRules.Setting) -> (proxy: String, origin: ProxyRules.Origin)? {
        let helper = inHelper.load(ordering: .relaxed)
        let chosen = ProxyRules.choose(url: url, setting: setting, environment: ProcessEnvironment.value,
                                       desktop: { helper ? desktopProxy(for: url) : nil })
        if helper {
            route.withLock { $0 = chosen.map { "\(ProxyRules.redacted($0.proxy)) from \($0.origin.rawValue)" } ?? "direct" }
        }
        return chosen
    }

    /// GIO's default proxy resolver's first usable answer for `url`; nil
    /// when it names none (or cannot be asked: then there is no desktop proxy).
    private static func desktopProxy(for url: String) -> String? {
        // scheme://authority: the resolver's answer depends on nothing else but a PAC file's whim.
        let authorityStart = url.firstIndex(of: ":").flatMap { url.index($0, offsetBy: 3, limitedBy: url.endIndex) }
            ?? url.startIndex
        let key = String(url[..<(url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" } ?? url.endIndex)])
        if let known = desktopAnswers.withLock({ $0[key] }) { return known.isEmpty ? nil : known }
        var proxy = [CChar](repeating: 0, count: 1024), why = [CChar](repeating: 0, count: 256)
        let found = vgp_proxy_lookup(url, &proxy, proxy.count, &why, why.count) == 0
        let answer = found ? String(decoding: proxy.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        desktopAnswers.withLock { $0[key] = answer }
        return answer.isEmpty ? nil : answer
    }

    /// The version of the libcurl this process loaded, nil before a request.
    package static var loadedVersion: String? { vgh_curl_loaded_version().flatMap { String(validatingCString: $0) } }

    private static func kind(of outcome: vgh_outcome) -> TransportError.Kind {
        switch outcome {
        case VGH_TIMEOUT: return .timeout
        case VGH_TOO_LARGE: return .tooLarge
        case VGH_TLS: return .tls
        case VGH_RESOLVE: return .resolve
        case VGH_CONNECT: return .connect
        case VGH_PROTOCOL: return .protocolError
        case VGH_UNAVAILABLE: return .unavailable
        case VGH_NETWORK: return .network
        default: return .internalError
        }
    }

    private static func describe(_ outcome: vgh_outcome, url: String, original: String, limits: TransportLimits,
                                 streamMs: Int?, detail: String) -> String {
        let place = url == original ? OneLine.quoted(url) : "\(OneLine.quoted(original)) (redirected to \(OneLine.quoted(url)))"
        switch outcome {
        case VGH_TIMEOUT:
            guard let streamMs else { return "\(place): timed out after \(limits.timeoutMs) ms (\(detail))" }
            return "\(place): stream timed out (\(limits.timeoutMs) ms to connect, \(streamMs) ms in all) (\(detail))"
        case VGH_TOO_LARGE: return "\(place): response over the \(limits.maxBodyBytes)-byte limit"
        case VGH_TLS: return "\(place): TLS failed: \(detail)"
        case VGH_RESOLVE: return "\(place): host not found: \(detail)"
        case VGH_CONNECT: return "\(place): cannot connect: \(detail)"
        case VGH_PROTOCOL: return "\(place): not a valid HTTP response: \(detail)"
        default: return "\(place): \(detail)"
        }
    }

    private static func message(of response: inout vgh_response) -> String {
        withUnsafeBytes(of: &response.message) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// "HTTP/1.1 200 OK\r\nName: value\r\n…" → [(name, value)], status line
    /// skipped, names in ASCII lower case, values without surrounding spaces
    /// and tabs. Over bytes: Character-wise trimming cost ~0.5M instructions
    /// per response (callgrind).
    package static func parseHeaders(_ text: String) -> [(name: String, value: String)] {
        let bytes = Array(text.utf8)
        var headers: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0D && bytes[end] != 0x0A { end += 1 }
            defer { start = end + 1 }
            let line = bytes[start..<end]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), !line.starts(with: "HTTP/".utf8) else { continue }
            let name = line[..<colon].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            var valueStart = colon + 1, valueEnd = end
            while valueStart < valueEnd && ASCII.isBlank(bytes[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart && ASCII.isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
            headers.append((String(decoding: name, as: UTF8.self), String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)))
        }
        return headers
    }

}

/// NUL-terminated copies of `strings` for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer(body)
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString(body)
}
