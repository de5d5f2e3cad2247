import XCTest
@testable import VersionGateCore
import VersionGateWire
@testable import VersionGateSystem

/// The rules of the core that used to sit next to their I/O: each checked
/// with plain values, no files or clock.
final class PureRulesTests: XCTestCase {

    // MARK: FNV-1a

    func testFNV1a64KnownVectors() {
        // The published FNV-1a 64 test vectors (draft-eastlake-fnv).
        XCTAssertEqual(FNV1a64.hash(""), 0xCBF2_9CE4_8422_2325)
        XCTAssertEqual(FNV1a64.hash("a"), 0xAF63_DC4C_8601_EC8C)
        XCTAssertEqual(FNV1a64.hash("foobar"), 0x8594_4171_F739_67E8)
        var pieces = FNV1a64()
        pieces.add("foo".utf8)
        pieces.add("bar".utf8)
        XCTAssertEqual(pieces.value, FNV1a64.hash("foobar"), "adding in pieces is hashing the whole")
        XCTAssertEqual(fnv1a64Hex(""), "cbf29ce484222325")
        XCTAssertEqual(fnv1a64Hex("foobar"), "85944171f73967e8")
        XCTAssertEqual(Rollout.bucket(installationID: "foo", latest: "bar"), Int(FNV1a64.hash("foo\nbar") % 100))
    }

    // MARK: Control and bidi code points

    func testOneTableOfControlsAndEachUsersClasses() {
        // Written out again here, so a changed table fails.
        let controls = Set<UInt32>(Array(0x00...0x1F) + Array(0x7F...0x9F))
        let bidiControls = Set<UInt32>(Array(0x202A...0x202E) + Array(0x2066...0x2069))
        let bidiMarks: Set<UInt32> = [0x200E, 0x200F]
        let separators: Set<UInt32> = [0x2028, 0x2029]
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected: ControlScalar? = controls.contains(value) ? .control
                : bidiControls.contains(value) ? .bidiControl
                : bidiMarks.contains(value) ? .bidiMark
                : separators.contains(value) ? .separator : nil
            let removed = (controls.contains(value) && value != 0x0A) || bidiControls.contains(value)
            if ControlScalar(scalar) != expected || MessageSanitizer.removes(scalar) != removed {
                XCTFail("U+\(String(value, radix: 16)): \(String(describing: ControlScalar(scalar)))")
            }
        }
        let hostile = "a\tb\u{202E}c\u{200F}d\u{2028}e\n"
        XCTAssertEqual(OneLine.text(hostile), "a b c d e ")
        XCTAssertEqual(MessageSanitizer.sanitize("x" + hostile), "xabc\u{200F}d\u{2028}e")
        let document = #"{"update_message": "a\tb\u202Ec\u200Fd\u2028e\n"}"#
        let lint = GateLint.problems(Array(document.utf8), platforms: ["linux"])
        XCTAssertTrue(lint.contains { $0.contains("has 2 control or bidi override") }, "\(lint)")
    }

    // MARK: Cache freshness and fallback

    func testCacheAgeTakesTheLaterOfBothClocksOfOneBoot() {
        let then = BootInstant(bootID: "a", seconds: 1000)
        func age(_ now: Int64, _ boot: BootInstant?) -> Int64? {
            CacheFreshness.age(fetchedAt: 5000, fetchedAtBoot: then, now: now, boot: boot)
        }
        XCTAssertEqual(age(5010, nil), 10, "no boot clock: the wall clock")
        XCTAssertEqual(age(5010, BootInstant(bootID: "a", seconds: 4600)), 3600, "wall clock set back: the boot clock")
        XCTAssertEqual(age(9000, BootInstant(bootID: "a", seconds: 1010)), 4000, "the later of the two")
        XCTAssertEqual(age(5010, BootInstant(bootID: "b", seconds: 99_999)), 10, "another boot is not compared")
        XCTAssertNil(age(5010, BootInstant(bootID: "a", seconds: 999)), "the boot clock went back: a bad file")
        XCTAssertNil(age(4999, nil), "from the future")
        XCTAssertEqual(CacheFreshness.age(fetchedAt: Int64.min, fetchedAtBoot: nil, now: Int64.max, boot: nil) ?? 0 < 0,
                       false, "no trap on impossible values")
    }

    func testFreshForTheServersMaxAgeElseTheTTLAndAFallbackUntilMaxStale() {
        XCTAssertTrue(CacheFreshness.isFresh(age: 3599, maxAgeSeconds: nil, ttlSeconds: 3600))
        XCTAssertFalse(CacheFreshness.isFresh(age: 3600, maxAgeSeconds: nil, ttlSeconds: 3600))
        XCTAssertTrue(CacheFreshness.isFresh(age: 3600, maxAgeSeconds: 7200, ttlSeconds: 3600), "max-age wins")
        XCTAssertFalse(CacheFreshness.isFresh(age: 0, maxAgeSeconds: 0, ttlSeconds: 3600), "no-cache")
        XCTAssertFalse(CacheFreshness.isFresh(age: nil, maxAgeSeconds: 60, ttlSeconds: 3600))
        XCTAssertTrue(CacheFreshness.isFallback(age: 86_400, maxStaleSeconds: 86_400))
        XCTAssertFalse(CacheFreshness.isFallback(age: 86_401, maxStaleSeconds: 86_400))
        XCTAssertFalse(CacheFreshness.isFallback(age: 0, maxStaleSeconds: 0), "0: never the cache")
        XCTAssertFalse(CacheFreshness.isFallback(age: nil, maxStaleSeconds: 86_400))
    }

    func testStaleWhileRevalidateWindowAfterTheFreshness() {
        func use(_ age: Int64?, maxAge: Int? = nil, server: Int? = nil, window: Int64 = 600) -> CacheFreshness.Use {
            CacheFreshness.use(age: age, maxAgeSeconds: maxAge, ttlSeconds: 3600, staleWhileRevalidateSeconds: server,
                               windowSeconds: window)
        }
        XCTAssertEqual(use(3599), .fresh)
        XCTAssertEqual(use(3600), .staleWhileRevalidate, "the TTL ends, the window begins")
        XCTAssertEqual(use(4199), .staleWhileRevalidate)
        XCTAssertEqual(use(4200), .fetch, "past TTL + window: a fetch first")
        XCTAssertEqual(use(4000, window: 0), .fetch, "0: fetch first, as before the window")
        XCTAssertEqual(use(4000, server: 86_400, window: 0), .fetch, "the option's 0 wins over the server")
        XCTAssertEqual(use(100, maxAge: 60, server: 120), .staleWhileRevalidate, "the server's window after its max-age")
        XCTAssertEqual(use(180, maxAge: 60, server: 120), .fetch, "the server's window wins over the option's")
        XCTAssertEqual(use(30, maxAge: 0, server: 0), .fetch, "no-cache: every check asks first")
        XCTAssertEqual(use(nil), .fetch, "from the future: neither fresh nor usable stale")
        XCTAssertEqual(use(Int64.max, window: 2_592_000), .fetch, "no trap on impossible ages")
        XCTAssertEqual(CacheFreshness.fallbackLimit(maxStaleSeconds: 86_400, staleIfErrorSeconds: nil), 86_400)
        XCTAssertEqual(CacheFreshness.fallbackLimit(maxStaleSeconds: 86_400, staleIfErrorSeconds: 600), 600)
        XCTAssertEqual(CacheFreshness.fallbackLimit(maxStaleSeconds: 0, staleIfErrorSeconds: 600), 0, "0: never")
    }

    func testCacheControlLifetime() {
        XCTAssertNil(CachingHeaders.lifetime(nil))
        XCTAssertNil(CachingHeaders.lifetime("public"))
        XCTAssertEqual(CachingHeaders.lifetime("max-age=60, Stale-While-Revalidate = 120, stale-if-error=600"),
                       CacheLifetime(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 120, staleIfErrorSeconds: 600))
        XCTAssertEqual(CachingHeaders.lifetime("stale-while-revalidate=999999999, stale-if-error=999999999"),
                       CacheLifetime(staleWhileRevalidateSeconds: 86_400, staleIfErrorSeconds: 86_400), "capped at 24 h")
        XCTAssertEqual(CachingHeaders.lifetime("stale-while-revalidate=-1, stale-if-error=x"), nil, "not numbers")
        XCTAssertEqual(CachingHeaders.lifetime("max-age=600, stale-while-revalidate=60, no-cache"),
                       CacheLifetime(maxAgeSeconds: 0, staleWhileRevalidateSeconds: 0), "no-cache: ask first")
        XCTAssertEqual(CachingHeaders.lifetime("max-age=600")?.maxAgeSeconds, CachingHeaders.maxAgeSeconds("max-age=600"))
    }

    func testCachingHeaders() {
        XCTAssertEqual(CachingHeaders.maxAgeSeconds("public, Max-Age = 600"), 600)
        XCTAssertEqual(CachingHeaders.maxAgeSeconds("max-age=999999999"), 86_400, "capped")
        XCTAssertEqual(CachingHeaders.maxAgeSeconds("max-age=600, no-store"), 0)
        XCTAssertNil(CachingHeaders.maxAgeSeconds("max-age=-1"))
        XCTAssertNil(CachingHeaders.maxAgeSeconds(nil))
        XCTAssertEqual(CachingHeaders.retryAfterSeconds(" 120 ", url: "https://a.example/g"), 120)
        XCTAssertEqual(CachingHeaders.retryAfterSeconds("999999999", url: "https://a.example/g"), 86_400)
        XCTAssertNil(CachingHeaders.retryAfterSeconds("120", url: "http://127.0.0.1/g"), "plain http")
        XCTAssertNil(CachingHeaders.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", url: "https://a.example/g"))
        XCTAssertEqual(CachingHeaders.etag("W/\"x\""), "W/\"x\"")
        XCTAssertNil(CachingHeaders.etag("caf\u{E9}"))
        XCTAssertNil(CachingHeaders.etag(""))
        XCTAssertEqual([429, 500, 502, 503, 504].filter(CachingHeaders.isThrottling), [429, 500, 503, 504])
    }

    // MARK: Backoff

    /// Always the same draws, so the jitter is known: 1 draws the lowest
    /// (0 would make the standard library's rejection sampling loop), max the highest.
    private struct Fixed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    func testBackoffDoublesWithJitterUpToFourHoursAndHonoursRetryAfter() {
        var low = Fixed(value: 1)
        var first = Backoff.after(nil, now: 1000, retryAfterSeconds: nil, random: &low)
        XCTAssertEqual(first, Backoff(until: 1000 + 60, failures: 1), "half of 2 min at the lowest draw")
        var high = Fixed(value: UInt64.max)
        first = Backoff.after(nil, now: 1000, retryAfterSeconds: nil, random: &high)
        XCTAssertEqual(first, Backoff(until: 1000 + 180, failures: 1), "one and a half at the highest")
        let third = Backoff.after(Backoff(until: 0, failures: 2), now: 0, retryAfterSeconds: nil, random: &low)
        XCTAssertEqual(third, Backoff(until: 240, failures: 3), "doubled twice")
        let many = Backoff.after(Backoff(until: 0, failures: 32), now: 0, retryAfterSeconds: nil, random: &high)
        XCTAssertEqual(many, Backoff(until: 6 * 3600, failures: 32), "4 h at most, failures bounded")
        let asked = Backoff.after(nil, now: 0, retryAfterSeconds: 3600, random: &low)
        XCTAssertEqual(asked.until, 3600, "Retry-After when longer")
        let greedy = Backoff.after(nil, now: 0, retryAfterSeconds: Int.max, random: &low)
        XCTAssertEqual(greedy.until, 24 * 3600, "Retry-After up to 24 h")

        XCTAssertEqual(Backoff(until: 1100, failures: 1).remainingSeconds(at: 1000), 100)
        XCTAssertNil(Backoff(until: 1000, failures: 1).remainingSeconds(at: 1000), "over")
        XCTAssertNil(Backoff(until: 1000 + 24 * 3600 + 1, failures: 1).remainingSeconds(at: 1000),
                     "longer than any server may ask: a bad file or a clock moved back")
        XCTAssertNil(Backoff(until: Int64.max, failures: 1).remainingSeconds(at: -1), "no trap")
        XCTAssertEqual(Backoff.decode(Backoff(until: 5, failures: 2).encoded()), Backoff(until: 5, failures: 2))
    }

    // MARK: Skip and remind

    func testSkipAndRemindRules() {
        XCTAssertTrue(PromptRules.isSkipped(latest: "2.0", skipped: "2.0.0"), "the same version, written otherwise")
        XCTAssertTrue(PromptRules.isSkipped(latest: "1.9", skipped: "2.0"), "an older latest")
        XCTAssertFalse(PromptRules.isSkipped(latest: "2.1", skipped: "2.0"), "a newer latest prompts again")
        XCTAssertFalse(PromptRules.isSkipped(latest: "2.0", skipped: "not a version"))
        XCTAssertEqual(PromptRules.sinceLastPrompt(1000, now: 1599, remindAfter: 600), 599)
        XCTAssertNil(PromptRules.sinceLastPrompt(1000, now: 1600, remindAfter: 600), "the wait is over")
        XCTAssertNil(PromptRules.sinceLastPrompt(1001, now: 1000, remindAfter: 600), "a prompt in the future")
        XCTAssertNil(PromptRules.sinceLastPrompt(Int64.min, now: Int64.max, remindAfter: 600), "no trap")
    }
}
