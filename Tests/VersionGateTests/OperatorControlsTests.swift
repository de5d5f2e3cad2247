import XCTest
@testable import VersionGateCore
@testable import VersionGateSystem

/// The grace period through the clock seam (System.wallClock, utcOffset), RFC
/// 3339 parsing, and the kill switch and rollout in the pure Decision.
final class OperatorControlsTests: XCTestCase {
    private static let effective: Int64 = 1_803_859_200   // 2027-03-01T00:00:00Z

    private func check(_ path: String, _ version: String, at now: Int64, utcOffset: Int64 = 0) throws -> GateResult {
        let client = GateClient(system: System(wallClock: { now }, environment: CheckEnvironment(variables: [:]),
                                               utcOffset: { _ in utcOffset }))
        try client.set("source", path)
        try client.set("session_scope", "process")
        try client.set("locale", "de")
        var text = version
        return text.withUTF8 { client.check(current: $0) }
    }

    func testTheGracePeriodOnBothSidesOfTheDate() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", """
            {"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
             "min_required_version_linux_effective_at": "2027-03-01T00:00:00Z"}
            """)
        let before = try check(path, "1.9", at: Self.effective - 1)
        XCTAssertEqual(before.status, .optional)
        XCTAssertTrue(before.shouldPrompt)
        XCTAssertEqual(before.rule, .gracePeriod)
        XCTAssertEqual(before.decision.reason,
                       "1.9 is below min_required_version_linux 2.0, required from 2027-03-01T00:00:00Z")
        XCTAssertNil(before.note)
        XCTAssertTrue(before.message?.string.contains("2027") == true)
        XCTAssertEqual(try check(path, "1.9", at: Self.effective).status, .mandatory)
        XCTAssertEqual(try check(path, "1.9", at: Self.effective + 86_400 * 365).status, .mandatory)
    }

    /// The date is the user's local date, from the seam's time zone: midnight
    /// UTC is still the day before west of Greenwich.
    func testTheGraceDateIsInTheSeamsTimeZone() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", """
            {"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
             "min_required_version_linux_effective_at": "2027-03-01T00:00:00Z"}
            """)
        let east = try check(path, "1.9", at: Self.effective - 1, utcOffset: 3600)
        let west = try check(path, "1.9", at: Self.effective - 1, utcOffset: -5 * 3600)
        XCTAssertTrue(east.message?.string.contains("1. März 2027") == true, east.message?.string ?? "nil")
        XCTAssertTrue(west.message?.string.contains("28. Februar 2027") == true, west.message?.string ?? "nil")
    }

    func testRFC3339() {
        let rows: [(String, Int64?, UInt)] = [
            ("2027-03-01T00:00:00Z", Self.effective, #line),
            ("2027-03-01t00:00:00z", Self.effective, #line),
            ("2027-03-01 01:30:00+01:30", Self.effective, #line),
            ("2027-02-28T19:00:00.123456-05:00", Self.effective, #line),
            ("1970-01-01T00:00:00Z", 0, #line),
            ("2024-02-29T00:00:00Z", 1_709_164_800, #line),
            ("2016-12-31T23:59:60Z", 1_483_228_799, #line),
            ("2023-02-29T00:00:00Z", nil, #line), ("2027-13-01T00:00:00Z", nil, #line),
            ("2027-03-01T00:60:00Z", nil, #line), ("2027-03-01T00:00:00+24:00", nil, #line),
            ("2027-03-01T00:00:00", nil, #line), ("2027-03-01", nil, #line), ("", nil, #line),
            ("+027-03-01T00:00:00Z", nil, #line), ("2027-03-01T00:00:00Zjunk", nil, #line),
            ("٢٠٢٧-03-01T00:00:00Z", nil, #line), ("2027-03-01T00:00:00.Z", nil, #line),
        ]
        for (text, seconds, line) in rows {
            XCTAssertEqual(RFC3339.seconds(text), seconds, text, line: line)
        }
        XCTAssertEqual(RFC3339.text(Self.effective), "2027-03-01T00:00:00Z")
        XCTAssertEqual(RFC3339.text(1_709_164_800 - 1), "2024-02-28T23:59:59Z")
        for seconds: Int64 in [0, 1, 951_782_400, 4_102_444_800, Self.effective] {
            XCTAssertEqual(RFC3339.seconds(RFC3339.text(seconds)), seconds)
        }
    }

    func testTheKillSwitchAndTheRolloutInTheDecision() {
        let snapshot = GateSnapshot(config: GateConfig(values: [
            "min_required_version_linux": "1.0", "latest_version_linux": "3.0",
            "blocked_versions_linux": "2.1, 2.2.0-beta", "latest_version_linux_rollout_percent": "40",
        ]), platform: "linux", documentName: "gate")
        func decision(_ version: String, bucket: Int?) -> Decision {
            var text = version
            return text.withUTF8 { Decision(current: $0, snapshot: snapshot, now: { 0 }) { _ in bucket } }
        }
        let rows: [(String, Int?, GateStatus, GateRule, String, UInt)] = [
            ("2.1.0", 0, .mandatory, .blocked, "2.1.0 is in blocked_versions_linux", #line),
            ("2.2.0-beta", 0, .mandatory, .blocked, "2.2.0-beta is in blocked_versions_linux", #line),
            ("2.2.0", 0, .optional, .belowLatest,
             "2.2.0 is below latest_version_linux 3.0, inside its staged rollout (bucket 0, shown below 40)", #line),
            ("2.3", 39, .optional, .belowLatest,
             "2.3 is below latest_version_linux 3.0, inside its staged rollout (bucket 39, shown below 40)", #line),
            ("2.3", 40, .upToDate, .outsideRollout,
             "2.3 is below latest_version_linux 3.0, outside its staged rollout (bucket 40, shown below 40)", #line),
            ("2.3", nil, .upToDate, .outsideRollout,
             "2.3 is below latest_version_linux 3.0, outside its staged rollout (no installation id to place this installation)",
             #line),
            ("0.9", 99, .mandatory, .belowMinimum, "0.9 is below min_required_version_linux 1.0", #line),
            ("3.0", nil, .upToDate, .upToDate,
             "3.0 is not below min_required_version_linux 1.0 or latest_version_linux 3.0", #line),
            ("3.x", nil, .upToDate, .failOpen, "current version \"3.x\" is not a valid version", #line),
        ]
        for (version, bucket, status, rule, reason, line) in rows {
            let made = decision(version, bucket: bucket)
            XCTAssertEqual(made.status, status, version, line: line)
            XCTAssertEqual(made.rule, rule, version, line: line)
            XCTAssertEqual(made.reason, reason, version, line: line)
        }
        // FNV-1a-64 of "\n" is 0xaf63c74c8601c8dd (a documented value an operator can recompute).
        XCTAssertEqual(Rollout.bucket(installationID: "", latest: ""), Int(0xAF63_C74C_8601_C8DD as UInt64 % 100))
    }
}
