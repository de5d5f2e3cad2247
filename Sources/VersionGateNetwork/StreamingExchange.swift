import VersionGateCore
import VersionGateWire
import CurlShim

/// A streaming exchange: a long-held response read as it arrives instead of
/// buffered (Firebase Remote Config's realtime channel: a POST whose 200 is
/// chunked and held open for minutes, a small JSON message now and then).
extension CurlTransport {
    /// Sends `request` (GET, or POST with its body and headers) under the
    /// same URL rules, proxy choice, TLS verification and error mapping as
    /// `send`, and hands a 2xx response's body to `onChunk` as it arrives,
    /// decoded, in order, on the calling thread, with the status.
    ///
    /// - No redirect is followed: a 3xx is returned as the response.
    /// - `onChunk` returning false stops the exchange at once; `stream` then
    ///   returns normally, as after the server ended the response.
    /// - `limits.timeoutMs` bounds connecting (DNS, TCP, TLS, a proxy's
    ///   tunnel), `maxSeconds` the whole exchange, always (<= 0: a timeout
    ///   at once). Either passing throws `.timeout`, whatever was delivered.
    /// - `limits.maxBodyBytes` caps the body in all, every chunk counted,
    ///   so a server cannot feed the stream forever: over it throws
    ///   `.tooLarge` (a Content-Length over it fails before any chunk).
    /// - The returned response has the status and headers; its body is
    ///   empty for a 2xx (the chunks went to `onChunk`), else the whole
    ///   body (a 503's explanation), and `onChunk` is never called.
    /// - Throws TransportError as `send` does for everything that is not a
    ///   response: refused URL, connect, resolve, TLS, protocol, network.
    package func stream(_ request: HTTPRequest, limits: TransportLimits, maxSeconds: Int,
                        onChunk: (_ status: Int, _ bytes: UnsafeRawBufferPointer) -> Bool)
        throws(TransportError) -> HTTPResponse {
        _ = try TransportURL.check(request.url).get()
        let (product, overflow) = maxSeconds.multipliedReportingOverflow(by: 1000)
        let maxMs = overflow ? (maxSeconds < 0 ? Int.min : Int.max) : product
        let outcome = withoutActuallyEscaping(onChunk) { deliver -> Result<HTTPResponse, TransportError> in
            let receiver = ChunkReceiver(deliver)
            let hook = StreamHook(sink: receiveChunk, context: Unmanaged.passUnretained(receiver).toOpaque(),
                                  maxMs: maxMs)
            return withExtendedLifetime(receiver) {
                Result { () throws(TransportError) in
                    let exchange = try perform(url: request.url, body: request.body, headers: request.headers,
                                               timeoutMs: limits.timeoutMs, limits: limits,
                                               originalURL: request.url, stream: hook)
                    let body = (200...299).contains(exchange.status) ? [] : receiver.otherBody
                    return HTTPResponse(status: exchange.status, headers: exchange.headers, body: body, url: request.url)
                }
            }
        }
        return try outcome.get()
    }
}

/// Where the shim's chunks go: a 2xx's to the caller, any other status's
/// into `otherBody` (the shim caps both, in all).
private final class ChunkReceiver {
    let deliver: (_ status: Int, _ bytes: UnsafeRawBufferPointer) -> Bool
    var otherBody: [UInt8] = []

    init(_ deliver: @escaping (_ status: Int, _ bytes: UnsafeRawBufferPointer) -> Bool) {
        self.deliver = deliver
    }

    func take(status: Int, bytes: UnsafeRawBufferPointer) -> Bool {
        guard (200...299).contains(status) else {
            otherBody.append(contentsOf: bytes)
            return true
        }
        return deliver(status, bytes)
    }
}

/// The shim's vgh_chunk_sink: `context` is the exchange's ChunkReceiver.
private func receiveChunk(_ context: UnsafeMutableRawPointer?, _ status: Int, _ bytes: UnsafePointer<UInt8>?,
                          _ length: Int) -> Int32 {
    guard let context else { return 0 }
    let receiver = Unmanaged<ChunkReceiver>.fromOpaque(context).takeUnretainedValue()
    return receiver.take(status: status, bytes: UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length)) ? 1 : 0
}
