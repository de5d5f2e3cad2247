/// How long to make no request after the server throttled us (429, 500,
/// 503, 504): 2 min doubling per consecutive failure up to 4 h, ±50 %
/// jitter so a fleet does not come back in step; a Retry-After (passed only
/// for https) is honoured up to 24 h. Persisted per source under
/// `$XDG_STATE_HOME/versiongate/` so a restart does not reset it.
package struct Backoff: Sendable, Equatable {
    package var until: Int64
    package var failures: Int

    package static let firstSeconds: Int64 = 120
    package static let maxSeconds: Int64 = 4 * 3600
    package static let maxRetryAfterSeconds: Int64 = 24 * 3600

    package static func after(_ previous: Backoff?, now: Int64, retryAfterSeconds: Int?,
                      random: inout some RandomNumberGenerator) -> Backoff {
        let failures = min((previous?.failures ?? 0) + 1, 32)
        let base = min(firstSeconds << Int64(min(failures - 1, 16)), maxSeconds)
        let jittered = base / 2 + Int64.random(in: 0...base, using: &random)
        let retryAfter = min(Int64(max(retryAfterSeconds ?? 0, 0)), maxRetryAfterSeconds)
        return Backoff(until: now &+ max(jittered, retryAfter), failures: failures)
    }

    /// Seconds left to wait at `now`; nil when the backoff is over, or lasts
    /// longer than any server may ask (a bad file, a clock moved back).
    package func remainingSeconds(at now: Int64) -> Int64? {
        let (left, overflow) = until.subtractingReportingOverflow(now)
        guard !overflow, left > 0, left <= Self.maxRetryAfterSeconds else { return nil }
        return left
    }

    package func encoded() -> [UInt8] {
        JSONValue.object(["until": .string(String(until)), "failures": .string(String(failures))]).encoded()
    }

    package static func decode(_ bytes: [UInt8]) -> Backoff? {
        guard let value = try? JSONValue.decode(bytes),
              case .string(let untilText) = value["until"], let until = Int64(decimal: untilText),
              case .string(let failuresText) = value["failures"], let failures = Int64(decimal: failuresText),
              failures <= 32 else { return nil }
        return Backoff(until: until, failures: Int(failures))
    }
}
