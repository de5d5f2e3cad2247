import VersionGateCore

/// A self-hosted gate document over https (any static host or CDN): GET
/// with If-None-Match; the body is a flat document or a template export,
/// exactly as a local one.
package struct DocumentFetcher: ConfigFetcher {
    package let url: String

    package var name: String { url }
    package var cacheKey: String { "document:" + url }

    package func fetch(_ context: FetchContext) throws(FetchFailure) -> FetchOutcome {
        var headers = [(name: "Accept", value: "application/json")]
        if let etag = context.previousETag { headers.append((name: "If-None-Match", value: etag)) }
        let response: HTTPResponse
        do {
            response = try context.transport.send(HTTPRequest(url: url, headers: headers), limits: context.requestLimits)
        } catch {
            throw FetchFailure(error.failure)
        }
        let maxAge = CachingHeaders.maxAgeSeconds(response.header("cache-control"))
        switch response.status {
        case 304:
            return .notModified(maxAgeSeconds: maxAge, note: nil)
        case 200:
            do {
                let config = try GateDocument.parse(response.body)
                return .updated(config, etag: CachingHeaders.etag(response.header("etag")), maxAgeSeconds: maxAge, note: nil)
            } catch {
                throw FetchFailure(.config("\(OneLine.quoted(url)) \(error.message)"))
            }
        default:
            throw FetchFailure(
                GateFailure(.http, "\(OneLine.quoted(url)): HTTP \(response.status)"),
                throttled: CachingHeaders.isThrottling(response.status),
                retryAfterSeconds: CachingHeaders.retryAfterSeconds(response.header("retry-after"), url: response.url))
        }
    }
}
