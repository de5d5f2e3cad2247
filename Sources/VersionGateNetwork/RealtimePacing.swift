import VersionGateCore
import VersionGateWire
#if canImport(Glibc)
import Glibc
#endif

/// When the realtime stream is opened again, as the SDKs decide it
/// (docs/design.md, "Watching a source"): at once after a stream that
/// answered 200, unless its `retryIntervalSeconds` said later; after a
/// failed connection (none made, or HTTP 408, 429, 502, 503 or 504) one
/// minute doubled per failure in a row, ±50 %, at most four hours; at most
/// eight attempts without a 200. Any other status ends realtime for the run.
struct RealtimePacing {
    private var failures = 0
    private var attemptsLeft = RealtimePacing.attempts
    private var due: Int64 = 0

    static let attempts = 8
    static let retryable: Set<Int> = [408, 429, 502, 503, 504]

    func millisecondsToNextAttempt() -> Int {
        Int(clamping: (due - Deadline.nowNanoseconds()) / 1_000_000)
    }

    /// Whether one more attempt may be made (and counts it).
    mutating func mayAttempt() -> Bool {
        guard attemptsLeft > 0 else { return false }
        attemptsLeft -= 1
        return true
    }

    /// The server's `retryIntervalSeconds`: no connection before then.
    mutating func retry(afterSeconds seconds: Int64) {
        due = Deadline.nowNanoseconds() + min(max(seconds, 0), 4 * 3600) * 1_000_000_000
    }

    /// A stream ended with `status` (nil: no answer). Whether to try again.
    mutating func ended(status: Int?) -> Bool {
        if let status, (200..<300).contains(status) {
            (failures, attemptsLeft) = (0, Self.attempts)
            due = max(due, Deadline.nowNanoseconds())
            return true
        }
        guard status.map(Self.retryable.contains) ?? true else { return false }
        failures += 1
        due = Deadline.nowNanoseconds() + Self.backoffMilliseconds(failures: failures) * 1_000_000
        return true
    }

    /// 60 s · 2^failures, ±50 %, at most four hours (the SDKs' calculateBackoffMillis).
    static func backoffMilliseconds(failures: Int) -> Int64 {
        let base = 60_000 * Double(1 << min(failures, 16))
        let jittered = base + 0.5 * base * Double.random(in: -1...1)
        return Int64(min(jittered, 4 * 3600 * 1000))
    }
}

/// The stream's messages, from chunks cut anywhere: each message is one
/// flat JSON object, from its `{` to the next `}` (the SDKs read it so).
struct RealtimeMessages {
    private var pending: [UInt8] = []
    /// Whether any byte came: the stream answered.
    private(set) var answered = false
    /// Far above any message, far below a hostile stream's.
    static let maxPendingBytes = 64 << 10

    mutating func add(_ bytes: UnsafeRawBufferPointer) -> [JSONValue] {
        answered = true
        pending.append(contentsOf: bytes)
        var messages: [JSONValue] = []
        while let open = pending.firstIndex(of: UInt8(ascii: "{")),
              let close = pending[open...].firstIndex(of: UInt8(ascii: "}")) {
            if let message = try? JSONValue.decode(Array(pending[open...close])) { messages.append(message) }
            pending.removeSubrange(...close)
        }
        if pending.count > Self.maxPendingBytes { pending.removeAll() }
        return messages
    }
}
