import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// A self-hosted gate document over https (any static host or CDN): GET
/// with If-None-Match; the body is a flat document or a template export,
/// exactly as a local one. With `trust`, the document counts only with a
/// valid `<url>.minisig`, fetched under the same deadline and URL rules.
package struct DocumentFetcher: ConfigFetcher {
    package let url: String
    package var trust: DocumentTrust? = nil
    /// `trusted_keys` as the host sent them.
    package var trustedKeysText: String? = nil

    package init(url: String, trust: DocumentTrust? = nil) { (self.url, self.trust) = (url, trust) }

    package var remote: RemoteConfig { .document(url: url, trustedKeys: trust == nil ? nil : trustedKeysText) }

    package func fetch(_ context: FetchContext) throws(FetchFailure) -> FetchOutcome {
        var headers = [(name: "Accept", value: "application/json")]
        if let etag = context.previousETag { headers.append((name: "If-None-Match", value: etag)) }
        let response: HTTPResponse
        do {
            response = try context.transport.send(HTTPRequest(url: url, headers: headers), limits: context.requestLimits)
        } catch {
            throw FetchFailure(error.failure)
        }
        let lifetime = CachingHeaders.lifetime(response.header("cache-control"))
        switch response.status {
        case 304:
            return .notModified(lifetime: lifetime, note: nil)
        case 200:
            let signature = try trust.map { trust throws(FetchFailure) in
                try verify(response.body, trust, context)
            }
            do {
                var config = try GateDocument.parse(response.body)
                config.signature = signature
                return .updated(config, etag: CachingHeaders.etag(response.header("etag")), lifetime: lifetime, note: nil)
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

    /// The body's signature, fetched beside it; a rollback is refused by
    /// RemoteSource, which knows the cached one.
    private func verify(_ body: [UInt8], _ trust: DocumentTrust, _ context: FetchContext) throws(FetchFailure)
        -> DocumentSignature {
        let signatureURL = SignatureCheck.signatureLocation(of: url)
        var limits = context.requestLimits   // what the deadline has left
        limits.maxBodyBytes = MinisignSignature.maxFileBytes
        let response: HTTPResponse
        do {
            response = try context.transport.send(HTTPRequest(url: signatureURL), limits: limits)
        } catch {
            throw FetchFailure(GateFailure(error.failure.kind, "signature: \(error.failure.message)"))
        }
        switch response.status {
        case 200:
            let document = OneLine.quoted(url)
            switch trust.verify(body, signatureFile: response.body, document: document,
                                signatureName: OneLine.quoted(signatureURL)) {
            case .success(let signature): return signature
            case .failure(let refused): throw FetchFailure(refused)
            }
        case 404, 410:
            throw FetchFailure(SignatureCheck.missing(document: OneLine.quoted(url),
                                                      signatureName: OneLine.quoted(signatureURL)))
        default:
            throw FetchFailure(
                GateFailure(.http, "\(OneLine.quoted(signatureURL)): HTTP \(response.status)"),
                throttled: CachingHeaders.isThrottling(response.status),
                retryAfterSeconds: CachingHeaders.retryAfterSeconds(response.header("retry-after"), url: response.url))
        }
    }
}
