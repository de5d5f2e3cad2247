import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// docs/design.md, "Versions", one row per rule, the rows in Tests/Fixtures/versions.json (shared
/// with the Python tests). Each comparison is checked in both orders.
final class VersionTests: XCTestCase {

    // MARK: Valid and invalid

    func testValidVersions() throws {
        let rows = try VersionTable.load().valid
        XCTAssertGreaterThanOrEqual(rows.count, 42, "versions.json lost valid rows")
        for row in rows {
            XCTAssertTrue(isValid(row.text), "\(row.rule): \(debug(row.text)) should be valid")
            XCTAssertEqual(compareCStrings(row.text, row.text), 0, "C-string road: \(debug(row.text))")
            withVersion(row.text) { XCTAssertEqual($0?.trimmedText, row.trimmed, "\(row.rule): trimmed text") }
            XCTAssertEqual(reference(row.text)?.trimmed, Array(row.trimmed.utf8), "reference model: \(row.rule)")
        }
    }

    func testInvalidVersions() throws {
        let rows = try VersionTable.load().invalid
        XCTAssertGreaterThanOrEqual(rows.count, 77, "versions.json lost invalid rows")
        for row in rows {
            XCTAssertFalse(isValid(row.text), "\(row.rule): \(debug(row.text)) should be invalid")
            XCTAssertNil(reference(row.text), "reference model: \(row.rule)")
            XCTAssertNil(compareCStrings(row.text, "1"), "C-string road: \(debug(row.text)) should be invalid")
            XCTAssertNil(compareCStrings("1", row.text), "C-string road: \(debug(row.text)) should be invalid")
            XCTAssertNil(compareCStrings(row.text, row.text), "C-string road: \(debug(row.text)) twice")
        }
    }

    /// Not in versions.json: its rows are C strings too (the C-string road
    /// here, ctypes in Python), and there "1.0\0" ends early as the valid "1.0".
    /// Kept inline up to 32 bytes, as a String beyond: the same text either way,
    /// and the decision's current version is the trimmed one.
    func testVersionTextKeepsEveryLength() {
        for length in [1, 5, 31, 32, 33, 100, Version.maxBytes - 2] {
            let text = "1." + String(repeating: "7", count: length)
            var bytes = Array(text.utf8)
            let kept = bytes.withUnsafeMutableBufferPointer { VersionText(UnsafeBufferPointer($0)) }
            bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }   // the caller's buffer is gone
            XCTAssertEqual(kept.string, text, "length \(text.utf8.count)")
        }
        XCTAssertEqual(VersionText("").string, "")
        let snapshot = GateSnapshot(config: GateConfig(values: ["min_required_version_linux": "1.0"]), platform: "linux",
                                    documentName: "test")
        for text in [" 1.2.3 ", "\t1.2.3-" + String(repeating: "a", count: 40) + "\n"] {
            var raw = text
            let decision = raw.withUTF8 { Decision(current: $0, snapshot: snapshot) }
            XCTAssertEqual(decision.currentText, text.trimmingCharacters(in: [" ", "\t", "\n"]))
        }
    }

    func testNULInsideIsInvalid() {
        for (text, rule) in [("1.0\u{0000}", "trailing NUL"), ("1\u{0000}.0", "NUL inside")] {
            XCTAssertFalse(isValid(text), "\(rule): \(debug(text)) should be invalid")
        }
    }

    /// Not valid UTF-8, so not in versions.json (JSON text is Unicode).
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

    // MARK: Order

    /// Every row through both roads, both ways round. The "plain road:" rows
    /// are the C-string road's fast path and where it hands over to the parser.
    func testOrderTable() throws {
        let rows = try VersionTable.load().compare
        XCTAssertGreaterThanOrEqual(rows.count, 73, "versions.json lost compare rows")
        assertOrder(rows)
    }

    /// Every pair of the ascending chain (it holds the semver.org §11 example).
    func testSortedChain() throws {
        let chain = try VersionTable.load().chain
        XCTAssertGreaterThanOrEqual(chain.count, 16, "versions.json lost chain versions")
        var rows: [VersionTable.Compare] = []
        for (i, a) in chain.enumerated() {
            for (j, b) in chain.enumerated() {
                rows.append(.init(a: a, b: b, expected: i < j ? -1 : (i == j ? 0 : 1), rule: "sorted chain"))
            }
        }
        assertOrder(rows)
    }

    /// Thousands of generated pairs against the reference model, so both
    /// compare roads (with and without leading zeros) meet every rule.
    func testOrderMatchesReferenceModel() {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<5000 {
            let a = random.version()
            let b = random.version()
            let expected = referenceOrder(a, b)
            XCTAssertNotNil(expected, "the reference model rejects \(a) or \(b)")
            XCTAssertEqual(compare(a, b), expected, "\(a) vs \(b)")
            XCTAssertEqual(compare(b, a), expected.map { -$0 }, "\(b) vs \(a)")
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

    /// Asserts `a ? b == expected` and `b ? a == -expected`, and that the
    /// reference model agrees with the row.
    private func assertOrder(_ rows: [VersionTable.Compare], file: StaticString = #filePath, line: UInt = #line) {
        for row in rows {
            for (a, b, expected) in [(row.a, row.b, row.expected), (row.b, row.a, -row.expected)] {
                XCTAssertEqual(compare(a, b), expected, "\(row.rule): \(a) vs \(b)", file: file, line: line)
                XCTAssertEqual(compareCStrings(a, b), expected,
                               "C-string road, \(row.rule): \(a) vs \(b)", file: file, line: line)
                XCTAssertEqual(referenceOrder(a, b), expected,
                               "reference model, \(row.rule): \(a) vs \(b)", file: file, line: line)
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

    /// ReferenceVersion (FuzzRegressionTests.swift), the one reference model.
    private func reference(_ text: String) -> ReferenceVersion.Parsed? {
        ReferenceVersion.parse(Array(text.utf8))
    }

    /// nil when the reference model finds either side invalid.
    private func referenceOrder(_ a: String, _ b: String) -> Int? {
        guard let x = reference(a), let y = reference(b) else { return nil }
        return ReferenceVersion.compare(x, y)
    }

    private func debug(_ text: String) -> String {
        text.count > 40 ? "\(text.utf8.count) bytes" : text.debugDescription
    }
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

