import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// A gate document at a URL, watched by its lock's holder (docs/design.md,
/// "Watching a source"): a conditional request every interval (±10 %, so a
/// fleet's requests spread out), the cache written as a refresh writes it.
/// A 304, or a document whose thresholds did not change, is silent; a
/// failure waits out the backoff it set.
final class DocumentWatch: SourceWatch {
    private var fetch: HelperRequest.ConfigFetch
    private let intervalSeconds: Int
    private var last: GateConfig?
    private var due: Int64 = 0

    init(_ fetch: HelperRequest.ConfigFetch, intervalSeconds: Int) {
        var fetch = fetch
        (fetch.mode, fetch.log, fetch.boot) = (.refresh, nil, nil)
        self.fetch = fetch
        self.intervalSeconds = intervalSeconds
        // The cached config the host had: changes are told against it. The
        // host has just decided from it: the first request waits an interval.
        last = fetch.cachedEntry?.config
        schedule(afterSeconds: Double(intervalSeconds) * Double.random(in: 0.9...1.1))
    }

    func millisecondsToNextStep() -> Int {
        Int(clamping: (due - Deadline.nowNanoseconds()) / 1_000_000)
    }

    func step() -> SourceWatchStep {
        fetch.backoff = fetch.stateHome.flatMap { PrivateDirectory(base: $0, files: POSIXFiles()) }?
            .read(CachedConfig.backoffName(forKey: fetch.remote.cacheKey), maxBytes: 4096)
        if let wait = fetch.backoff.flatMap(Backoff.decode)?.remainingSeconds(at: HelperRequest.ConfigFetch.wallClock()) {
            schedule(afterSeconds: Double(wait))
            return .quiet
        }
        defer { schedule(afterSeconds: Double(intervalSeconds) * Double.random(in: 0.9...1.1)) }
        guard let entry = fetch.fetchNow() else { return .quiet }
        defer { last = entry.config }
        return entry.config == last ? .quiet : .changed
    }

    private func schedule(afterSeconds seconds: Double) {
        due = Deadline.nowNanoseconds() + Int64(seconds * 1e9)
    }
}
