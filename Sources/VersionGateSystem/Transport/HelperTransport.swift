import VersionGateCore
import VersionGateWire

/// One HTTP exchange made in the helper (docs/design.md, "The fetch
/// helper"): what the host sends itself (the App Store lookup, a channel's
/// question), though it never loads libcurl.
package struct HelperTransport: HTTPTransport {
    package init() {}

    package func send(_ request: HTTPRequest, limits: TransportLimits) throws(TransportError) -> HTTPResponse {
        switch HelperProcess.call(.http(request, limits), until: Deadline(afterMilliseconds: limits.timeoutMs)) {
        case .success(.response(let response)?): return response
        case .success(.failed(let failure)?): throw TransportError(failure)
        case .success: throw TransportError(kind: .internalError, message: "the helper answered an http request with no response")
        case .failure(let failure): throw TransportError(failure)
        }
    }
}
