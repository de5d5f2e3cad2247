import XCTest
import VersionGateC
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// SPEC §4, one row per rule. Thresholds that are empty or invalid reach the
/// gate as nil, exactly as callers hand them over.
final class GateTests: XCTestCase {

    func testDecisions() {
        let rows: [(current: String, min: String?, latest: String?, expected: GateStatus, rule: String)] = [
            ("1.0.40", nil, nil, .upToDate, "neither threshold"),
            // min only
            ("1.0.38", "1.0.39", nil, .mandatory, "min only, below"),
            ("1.0.39", "1.0.39", nil, .upToDate, "min only, equal"),
            ("1.0.40", "1.0.39", nil, .upToDate, "min only, above"),
            // latest only
            ("1.0.40", nil, "1.0.41", .optional, "latest only, below"),
            ("1.0.41", nil, "1.0.41", .upToDate, "latest only, equal"),
            ("1.0.42", nil, "1.0.41", .upToDate, "latest only, above"),
            // both
            ("1.0.38", "1.0.39", "1.0.41", .mandatory, "both, below min"),
            ("1.0.39", "1.0.39", "1.0.41", .optional, "both, equal to min"),
            ("1.0.40", "1.0.39", "1.0.41", .optional, "both, between"),
            ("1.0.41", "1.0.39", "1.0.41", .upToDate, "both, equal to latest"),
            ("2.0", "1.0.39", "1.0.41", .upToDate, "both, above"),
            // min > latest (operator error) still blocks below min
            ("1.0.40", "1.0.45", "1.0.41", .mandatory, "min > latest, below both"),
            ("1.0.42", "1.0.45", "1.0.41", .mandatory, "min > latest, between"),
            ("1.0.45", "1.0.45", "1.0.41", .upToDate, "min > latest, equal to min"),
            // invalid current never blocks
            ("", "1.0.39", "1.0.41", .upToDate, "empty current"),
            ("garbage", "1.0.39", "1.0.41", .upToDate, "garbage current"),
            ("1.0b1", "9.9", "9.9", .upToDate, "malformed current"),
            ("9223372036854775808", "9.9", "9.9", .upToDate, "overflowing current"),
            // invalid or empty thresholds count as absent, each on its own
            ("1.0.0", "", "", .upToDate, "both thresholds empty"),
            ("1.0.0", "garbage", "1.0.1", .optional, "invalid min, latest still applies"),
            ("1.0.0", "1.0.1", "garbage", .mandatory, "invalid latest, min still applies"),
            ("1.0.0", "2.0 (123)", nil, .upToDate, "invalid min alone"),
            // pre-releases
            ("1.0.39-beta", "1.0.39", nil, .mandatory, "pre-release current below its release min"),
            ("1.0.41-rc.1", nil, "1.0.41", .optional, "pre-release current below its release latest"),
            ("1.0.42-alpha", "1.0.39", "1.0.41", .upToDate, "pre-release current above both"),
            ("1.0.39", "1.0.39-rc.1", nil, .upToDate, "release current above a pre-release min"),
            // the grammar's equalities reach the gate
            ("1.0.39+5", "1.0.39+6", nil, .upToDate, "build metadata ignored"),
            ("1.0.39", "01.0.039", nil, .upToDate, "leading zeros in the threshold"),
            ("1.10", "1.9", nil, .upToDate, "numeric, not lexical"),
            ("v1.0.39", "1.0.39.0", "1.0.39", .upToDate, "v and trailing zeros"),
        ]
        for row in rows {
            let inputs = "current \(row.current), min \(row.min ?? "-"), latest \(row.latest ?? "-")"
            XCTAssertEqual(decide(row.current, row.min, row.latest), row.expected, "\(row.rule): \(inputs)")
        }
    }

    /// The ABI's one mapping against the header's own constants.
    func testStatusesMapToTheCHeader() {
        XCTAssertEqual(cStatus(.upToDate), VG_STATUS_UP_TO_DATE)
        XCTAssertEqual(cStatus(.optional), VG_STATUS_OPTIONAL)
        XCTAssertEqual(cStatus(.mandatory), VG_STATUS_MANDATORY)
    }

    /// Every failure kind has its own header code, with a name and a text.
    func testFailureKindsMapToDistinctHeaderCodes() {
        let codes = GateFailure.Kind.allCases.map(\.code)
        XCTAssertEqual(Set(codes).count, GateFailure.Kind.allCases.count, "two kinds share a code")
        XCTAssertFalse(codes.contains(VG_OK.rawValue))
        for code in codes {
            XCTAssertTrue(errorName(code).hasPrefix("VG_E") && errorName(code) != "VG_EUNKNOWN", "\(code)")
            XCTAssertNotEqual(String(cString: vg_strerror(code)), "unknown error", "\(code)")
        }
        XCTAssertEqual(GateFailure.Kind.allCases.count, 14, "the header has 14 error codes besides VG_OK")
    }

    private func decide(_ current: String, _ min: String?, _ latest: String?) -> GateStatus {
        withOptionalVersion(current) { current in
            withOptionalVersion(min) { min in
                withOptionalVersion(latest) { latest in
                    Gate.decide(current: current, minRequired: min, latest: latest)
                }
            }
        }
    }

    private func withOptionalVersion<R>(_ text: String?, _ body: (Version?) -> R) -> R {
        guard let text else { return body(nil) }
        return withVersion(text, body)
    }
}
