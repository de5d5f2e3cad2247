import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// A channel question, the helper's side (docs/design.md, "Asking the
/// channel"): one exchange, the next cache entry written, the entry
/// answered. The host decided that it was time to ask and holds the lock
/// this process inherited (descriptor 3) until it exits: the next launch
/// finds the entry, whether or not the host still listens.
package enum ChannelService {
    package static func ask(_ ask: HelperRequest.ChannelAsk) -> HelperAnswer {
        // Bounded however the exchange goes: its own limit, then this.
        alarm(UInt32(clamping: ask.limits.timeoutMs / 1000 + 15))
        var random = SystemRandom()
        let entry: ChannelEntry
        do throws(TransportError) {
            let response = try CurlTransport().send(ask.request, limits: ask.limits)
            entry = ask.previous.answered(
                status: response.status, body: response.body, etag: CachingHeaders.etag(response.header("etag")),
                lastModified: CachingHeaders.etag(response.header("last-modified")),
                retryAfterSeconds: CachingHeaders.retryAfterSeconds(response.header("retry-after"), url: response.url),
                question: ask.question, now: ask.now, random: &random)
        } catch {
            entry = ask.previous.failed(error.message, retryAfterSeconds: nil, now: ask.now, random: &random)
        }
        let bytes = entry.encoded()
        guard PrivateDirectory(base: ask.cacheHome, files: POSIXFiles())?.write(ask.fileName, bytes) == true else {
            return .failed(GateFailure(.internalError, "the channel's answer could not be written to \(ask.cacheHome)"))
        }
        return .learned(entry: bytes)
    }
}
