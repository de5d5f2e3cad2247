import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// SPEC §3, one row per rule. Each comparison is checked in both orders.
final class VersionTests: XCTestCase {

    // MARK: Valid and invalid

    func testValidVersions() {
        let rows: [(text: String, rule: String)] = [
            ("0", "a single component"),
            ("1.2.3", "dotted release"),
            ("1.2.3.4.5.6.7", "any number of components"),
            ("v1.0", "optional v"),
            ("V1.0", "optional V"),
            ("1.01", "leading zeros in the release"),
            ("0000000000000000000001", "leading zeros past 19 digits are still 1"),
            ("9223372036854775807", "2^63-1 is the largest component"),
            ("0009223372036854775807", "2^63-1 with leading zeros"),
            ("1.9223372036854775807.0", "2^63-1 in the middle"),
            (" 1.0", "leading space trimmed"),
            ("1.0 ", "trailing space trimmed"),
            ("\t\r\n 1.0 \n\r\t", "tabs, CR, LF trimmed at both ends"),
            ("1.0.0-alpha", "pre-release"),
            ("1.0.0-0", "numeric pre-release zero"),
            ("1.0.0-alpha.1.beta", "dotted pre-release"),
            ("1.0.0-x-y-z", "hyphens inside identifiers"),
            ("1.0.0--", "an identifier can be just a hyphen"),
            ("1.0.0-00a", "leading zero fine in an alphanumeric identifier"),
            ("1.0.0-99999999999999999999999999", "numeric pre-release has no size limit"),
            ("1.0.0+001", "build may have leading zeros"),
            ("1.0.0+build.5-x", "dotted build"),
            ("1.0.0-rc.1+build.5", "pre-release and build"),
            ("v1-a+b", "shortest of everything"),
            (String(repeating: "0", count: 256), "256 bytes"),
            ("1.0-" + String(repeating: "a", count: 252), "256 bytes with a pre-release"),
            (String(repeating: " ", count: 255) + "1", "256 raw bytes, trimmed"),
        ]
        for row in rows {
            XCTAssertTrue(isValid(row.text), "\(row.rule): \(debug(row.text)) should be valid")
            XCTAssertEqual(compareCStrings(row.text, row.text), 0, "C-string road: \(debug(row.text))")
        }
    }

    func testInvalidVersions() {
        let rows: [(text: String, rule: String)] = [
            ("", "empty"),
            ("   \t\r\n", "only trimmable whitespace"),
            ("v", "v without a release"),
            ("V", "V without a release"),
            ("vv1", "two v's"),
            ("x1.0", "another letter prefix"),
            ("1..2", "empty component"),
            (".1", "leading dot"),
            ("1.", "trailing dot"),
            ("1.0.", "trailing dot after components"),
            ("+1", "plus sign"),
            ("-2", "minus sign"),
            ("a.b", "letters in the release"),
            ("1.a", "letter component"),
            ("1.0b1", "letters glued to the release"),
            ("1,0", "comma separator"),
            ("1.0_1", "underscore"),
            ("\u{0663}", "Arabic-Indic digit three"),
            ("1.\u{0661}", "Arabic-Indic digit one in a component"),
            ("\u{FF11}.0", "full-width digit one"),
            ("1 .0", "inner space"),
            ("1. 0", "inner space after the dot"),
            ("v 1.0", "space after v"),
            ("2.0 (123)", "build number in parentheses"),
            ("=1.0", "comparison operator"),
            (">=1.0", "range operator"),
            ("1.0-", "empty pre-release"),
            ("1.0+", "empty build"),
            ("1.0-+b", "empty pre-release before build"),
            ("1.0-a..b", "empty pre-release identifier"),
            ("1.0-a.", "trailing dot in pre-release"),
            ("1.0-.a", "leading dot in pre-release"),
            ("1.0+a..b", "empty build identifier"),
            ("1.0+a.", "trailing dot in build"),
            ("1.0-01", "numeric pre-release identifier with a leading zero"),
            ("1.0-a.00", "numeric pre-release identifier 00"),
            ("1.0-a_b", "underscore in pre-release"),
            ("1.0-a b", "space in pre-release"),
            ("1.0+a+b", "two build parts"),
            ("1.0+a-b+c", "plus inside build"),
            ("1.0-\u{00E4}", "non-ASCII letter in pre-release"),
            ("9223372036854775808", "2^63 overflows a component"),
            ("1.9223372036854775808", "2^63 in a later component"),
            ("99999999999999999999", "20 digits"),
            ("1.0\u{00A0}", "trailing NBSP is not trimmed"),
            ("\u{00A0}1.0", "leading NBSP is not trimmed"),
            ("\u{2003}1.0", "em space is not trimmed"),
            ("\u{000B}1.0", "vertical tab is not trimmed"),
            ("\u{000C}1.0", "form feed is not trimmed"),
            ("1.0\u{0000}", "trailing NUL"),
            ("1\u{0000}.0", "NUL inside"),
            (String(repeating: "0", count: 257), "257 bytes"),
            (String(repeating: " ", count: 256) + "1", "257 raw bytes, even though they trim short"),
        ]
        for row in rows {
            XCTAssertFalse(isValid(row.text), "\(row.rule): \(debug(row.text)) should be invalid")
            // A C string ends at its first NUL, so those rows mean something else there.
            guard !row.text.utf8.contains(0) else { continue }
            XCTAssertNil(compareCStrings(row.text, "1"), "C-string road: \(debug(row.text)) should be invalid")
            XCTAssertNil(compareCStrings("1", row.text), "C-string road: \(debug(row.text)) should be invalid")
            XCTAssertNil(compareCStrings(row.text, row.text), "C-string road: \(debug(row.text)) twice")
        }
    }

    func testNonUTF8BytesAreRejected() {
        let rows: [(bytes: [UInt8], rule: String)] = [
            ([0x31, 0x2E, 0xFF], "0xFF byte"),
            ([0xC3, 0x28], "bad continuation"),
            ([0x31, 0x2E, 0x30, 0x2D, 0x80], "lone continuation in pre-release"),
            ([0xEF, 0xBB, 0xBF, 0x31], "UTF-8 byte order mark"),
            ([0x31, 0x2E, 0x30, 0xC2, 0xA0], "NBSP as raw bytes"),
        ]
        for row in rows {
            let valid = row.bytes.withUnsafeBufferPointer { Version(bytes: $0) != nil }
            XCTAssertFalse(valid, row.rule)
        }
    }

    func testOneMegabyteBufferIsRejected() {
        var huge = [UInt8](repeating: UInt8(ascii: "1"), count: 1 << 20)
        huge.withUnsafeBufferPointer { XCTAssertNil(Version(bytes: $0)) }
        // Through the C-string path: the scan stops at maxBytes + 1.
        huge[huge.count - 1] = 0
        huge.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return XCTFail("no buffer") }
                let bytes = versionBytes(cString: base)
                XCTAssertEqual(bytes.count, Version.maxBytes + 1)
                XCTAssertNil(Version(bytes: bytes))
                XCTAssertNil(Version.compare(cString: base, base))
                "1".withCString { one in XCTAssertNil(Version.compare(cString: base, one)) }
            }
        }
    }

    func testCStringBytesStopAtNUL() {
        let rows: [(text: String, count: Int, valid: Bool)] = [
            ("", 0, false),
            ("1.2.3", 5, true),
            (" v1.0-rc.1 ", 11, true),
            (String(repeating: "0", count: 256), 256, true),
            (String(repeating: "0", count: 300), 257, false),
        ]
        for row in rows {
            row.text.withCString { cString in
                let bytes = versionBytes(cString: cString)
                XCTAssertEqual(bytes.count, row.count, debug(row.text))
                XCTAssertEqual(Version(bytes: bytes) != nil, row.valid, debug(row.text))
            }
        }
    }

    func testTrimmedTextIsWhatTheCallerWrote() {
        let rows: [(text: String, trimmed: String)] = [
            ("1.0", "1.0"),
            (" \tv1.0.01-RC.1+b \r\n", "v1.0.01-RC.1+b"),
        ]
        for row in rows {
            withVersion(row.text) { XCTAssertEqual($0?.trimmedText, row.trimmed) }
        }
    }

    // MARK: Order

    func testReleaseOrder() {
        assertOrder([
            ("1.0", "1.0.0", 0, "missing components are 0"),
            ("1", "1.0.0.0", 0, "any number of missing components"),
            ("1.01", "1.1", 0, "leading zeros are numeric"),
            ("0000000000000000000001", "1", 0, "long leading zeros"),
            ("00.00", "0", 0, "all zeros"),
            ("v1.2", "1.2", 0, "v is ignored"),
            ("V1.2", "v1.2", 0, "V and v are the same"),
            (" 1.2\n", "1.2", 0, "trimming is ignored"),
            ("1.10", "1.9", 1, "numeric, not lexical"),
            ("10.0", "9.99", 1, "first component decides"),
            ("2.0", "10.0", -1, "longer number is larger"),
            ("1.2.3", "1.2.4", -1, "last component decides"),
            ("1.0.1", "1.0", 1, "an extra non-zero component"),
            ("1.0.0.0.1", "1", 1, "a deep non-zero component"),
            ("9223372036854775807", "9223372036854775806", 1, "2^63-1 against its predecessor"),
            ("0009223372036854775807", "9223372036854775807", 0, "2^63-1 with leading zeros"),
            ("9223372036854775807", "999999999999999999", 1, "19 digits beat 18"),
        ])
    }

    func testPreReleaseOrder() {
        assertOrder([
            ("2.0.0-beta", "2.0.0", -1, "a pre-release is before its release"),
            ("1.0-beta", "1.0.0", -1, "also when components are missing"),
            ("1.0.1-alpha", "1.0.0", 1, "release decides before pre-release"),
            ("1-a", "1.0.0-a", 0, "missing components with a pre-release"),
            ("1.0.0-alpha", "1.0.0-alpha", 0, "equal pre-releases"),
            ("1.0.0-2", "1.0.0-10", -1, "numeric identifiers compare numerically"),
            ("1.0.0-999999999999999999999", "1.0.0-a", -1, "numeric < alphanumeric"),
            ("1.0.0-1", "1.0.0-1a", -1, "digits then a letter are alphanumeric"),
            ("1.0.0-0", "1.0.0-00a", -1, "00a is alphanumeric"),
            ("1.0.0-0", "1.0.0--", -1, "a hyphen identifier is alphanumeric"),
            ("1.0.0-B", "1.0.0-a", -1, "ASCII order: upper case first"),
            ("1.0.0-a-b", "1.0.0-a", 1, "ASCII order: a prefix is smaller"),
            ("1.0.0-alpha", "1.0.0-alpha.0", -1, "a shorter list is smaller"),
            ("1.0.0-rc.1", "1.0.0-rc.1.a", -1, "a shorter list is smaller, alphanumeric next"),
            ("1.0.0-99999999999999999999999999", "1.0.0-99999999999999999999999998", 1,
             "huge numeric identifiers, same length"),
            ("1.0.0-100000000000000000000000000", "1.0.0-99999999999999999999999999", 1,
             "huge numeric identifiers, longer is larger"),
            ("1.0.0-a.99999999999999999999999999", "1.0.0-a.b", -1, "huge numeric < alphanumeric"),
        ])
    }

    func testSemverSpecExampleChain() {
        let chain = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
            "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0",
        ]
        var rows: [(String, String, Int, String)] = []
        for (i, a) in chain.enumerated() {
            for (j, b) in chain.enumerated() {
                rows.append((a, b, i < j ? -1 : (i == j ? 0 : 1), "semver.org §11 chain"))
            }
        }
        assertOrder(rows)
    }

    /// The C-string road's plain fast path and where it hands over to the
    /// parser (assertOrder runs every row through both roads).
    func testPlainRoadEdges() {
        let long = String(repeating: "1.", count: 127) + "1"  // 255 bytes, plain
        assertOrder([
            ("1.0.0.0", "1", 0, "trailing zero components"),
            ("1.0.0.1", "1", 1, "a trailing non-zero component"),
            ("1.0", "1.0.10", -1, "extra component with a zero digit inside"),
            ("0", "0.0", 0, "zero against zeros"),
            ("0.1", "0.0.5", 1, "second component decides"),
            ("1.0.10", "1.0.1", 1, "one more digit after a shared prefix"),
            ("10.4.1", "10.4.12", -1, "one side ends inside the shared component"),
            ("2.10.0", "2.9.3", 1, "longer component after one shared digit"),
            ("999999999999999999", "1000000000000000000", -1, "18 digits (plain) against 19 (parser)"),
            ("123456789012345678.1", "123456789012345678.2", -1, "18-digit shared component"),
            ("01.2", "1.3", -1, "a leading zero hands over to the parser"),
            ("1.2", "v1.2", 0, "a v hands over to the parser"),
            ("1.2", "1.2-rc.1", 1, "a pre-release hands over to the parser"),
        ])
        XCTAssertEqual(compareCStrings(long, long), 0)
        XCTAssertEqual(compareCStrings(long + "0", long + "1"), -1, "256 bytes, plain")
        XCTAssertNil(compareCStrings(long + ".1", long + ".1"), "257 bytes")
        XCTAssertNil(compareCStrings(long + "00", long + "00"), "257 bytes, ending in digits")
    }

    func testBuildMetadataIsIgnored() {
        assertOrder([
            ("1.0.0+build.1", "1.0.0+build.2", 0, "different builds"),
            ("1.0.0+zzz", "1.0.0", 0, "build against none"),
            ("1.0.0-rc.1+a", "1.0.0-rc.1+b", 0, "builds after equal pre-releases"),
            ("1.0.0-rc.1+zzz", "1.0.0", -1, "build does not lift a pre-release"),
            ("1.0.1+0", "1.0.0+999", 1, "release still decides"),
        ])
    }

    /// Thousands of generated pairs against a plain reference model, so both
    /// compare roads (with and without leading zeros) meet every rule.
    func testOrderMatchesReferenceModel() {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<5000 {
            let a = random.version()
            let b = random.version()
            let expected = referenceCompare(a, b)
            XCTAssertEqual(compare(a, b), expected, "\(a) vs \(b)")
            XCTAssertEqual(compare(b, a), -expected, "\(b) vs \(a)")
            XCTAssertEqual(compareCStrings(a, b), expected, "C-string road: \(a) vs \(b)")
        }
    }

    /// vg_decide's plain road against Gate.decide on parsed versions: every
    /// triple of a table mixing plain, non-plain and invalid texts, then
    /// generated ones.
    func testDecideRoadsAgree() {
        let texts = ["1.0.38", "1.0.40", "1.0.41", "1.0.41.0", "2", "01.0.40", "v1.0.40", "1.0.40-rc.1",
                     "1.0.41+7", "", "garbage", "1..0", "999999999999999999", "1000000000000000000"]
        var triples: [(String, String, String)] = []
        for c in texts { for m in texts { for l in texts { triples.append((c, m, l)) } } }
        var random = SeededRandom(seed: 0xDEC1DE)
        for _ in 0..<2000 { triples.append((random.version(), random.version(), random.version())) }
        for (c, m, l) in triples {
            let expected = withVersion(c) { current in
                withVersion(m) { min in withVersion(l) { latest in
                    Gate.decide(current: current, minRequired: min, latest: latest)
                } }
            }
            let status = c.withCString { c in m.withCString { m in l.withCString { l in vg_decide(c, m, l) } } }
            XCTAssertEqual(status, cStatus(expected), "vg_decide(\(c), \(m), \(l))")
        }
    }

    // MARK: Helpers

    private func isValid(_ text: String) -> Bool {
        withVersion(text) { $0 != nil }
    }

    /// Asserts `a ? b == expected` and `b ? a == -expected`.
    private func assertOrder(
        _ rows: [(a: String, b: String, expected: Int, rule: String)],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for row in rows {
            for (a, b, expected) in [(row.a, row.b, row.expected), (row.b, row.a, -row.expected)] {
                XCTAssertEqual(compare(a, b), expected, "\(row.rule): \(a) vs \(b)", file: file, line: line)
                XCTAssertEqual(compareCStrings(a, b), expected,
                               "C-string road, \(row.rule): \(a) vs \(b)", file: file, line: line)
            }
        }
    }

    private func compareCStrings(_ a: String, _ b: String) -> Int? {
        a.withCString { a in b.withCString { b in Version.compare(cString: a, b) } }
    }

    /// nil when either side is invalid, so an invalid row fails instead of passing.
    private func compare(_ a: String, _ b: String) -> Int? {
        withVersion(a) { first in
            withVersion(b) { second in
                guard let first, let second else { return nil }
                return first.compare(to: second)
            }
        }
    }

    private func debug(_ text: String) -> String {
        text.count > 40 ? "\(text.utf8.count) bytes" : text.debugDescription
    }
}

// MARK: - Reference model (allocates freely; clarity over speed)

/// semver §11 on plain Swift values: the independent opinion the generated
/// pairs are checked against.
private func referenceCompare(_ a: String, _ b: String) -> Int {
    let (releaseA, preA) = referenceParts(a)
    let (releaseB, preB) = referenceParts(b)
    for k in 0..<max(releaseA.count, releaseB.count) {
        let x = k < releaseA.count ? releaseA[k] : ""
        let y = k < releaseB.count ? releaseB[k] : ""
        if x != y { return (x.count, x) < (y.count, y) ? -1 : 1 }
    }
    switch (preA, preB) {
    case (nil, nil): return 0
    case (nil, _): return 1
    case (_, nil): return -1
    case let (x?, y?):
        for (p, q) in zip(x, y) where p != q {
            let pNumeric = p.allSatisfy { $0.isASCII && $0.isWholeNumber }
            let qNumeric = q.allSatisfy { $0.isASCII && $0.isWholeNumber }
            switch (pNumeric, qNumeric) {
            case (true, true): return (p.count, p) < (q.count, q) ? -1 : 1
            case (true, false): return -1
            case (false, true): return 1
            case (false, false): return Array(p.utf8).lexicographicallyPrecedes(Array(q.utf8)) ? -1 : 1
            }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}

/// Release components without leading zeros ("0" becomes ""), and the
/// pre-release identifiers; build dropped. Only for generated, valid input.
private func referenceParts(_ text: String) -> (release: [String], pre: [String]?) {
    let noBuild = text.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)[0]
    let parts = noBuild.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    let release = parts[0].split(separator: ".").map { String($0.drop { $0 == "0" }) }
    let pre = parts.count > 1 ? parts[1].split(separator: ".").map(String.init) : nil
    return (release, pre)
}

/// A reproducible generator (SplitMix64) of valid versions from small pools,
/// so that pairs often share prefixes and differ in one rule at a time.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E5E9_CFB9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    mutating func pick(_ pool: [String]) -> String { pool[next(pool.count)] }

    mutating func version() -> String {
        let numbers = ["0", "1", "2", "9", "10", "11", "99", "100", "9223372036854775807"]
        let leading = ["", "", "", "", "0", "00"]
        let identifiers = ["alpha", "beta", "rc", "0", "1", "2", "10", "11", "a-b", "-", "A", "Z",
                           "99999999999999999999", "100000000000000000000"]
        var text = (0...next(4)).map { _ in pick(leading) + pick(numbers) }.joined(separator: ".")
        if next(2) == 0 {
            text += "-" + (0...next(3)).map { _ in pick(identifiers) }.joined(separator: ".")
        }
        if next(4) == 0 { text += "+build." + pick(numbers) }
        return text
    }
}

