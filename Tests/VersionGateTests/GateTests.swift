import XCTest
import VersionGateC
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// docs/design.md, "The gate rule", one row per rule, the rows in Tests/Fixtures/versions.json (shared
/// with the Python tests). Thresholds that are empty or invalid reach the
/// gate as nil, exactly as callers hand them over.
final class GateTests: XCTestCase {

    func testDecisions() throws {
        let rows = try VersionTable.load().decide
        XCTAssertGreaterThanOrEqual(rows.count, 57, "versions.json lost decide rows")
        let statuses: [String: GateStatus] = ["UP_TO_DATE": .upToDate, "OPTIONAL": .optional, "MANDATORY": .mandatory]
        for row in rows {
            let inputs = "current \(row.current ?? "-"), min \(row.min ?? "-"), latest \(row.latest ?? "-")"
            let expected = try XCTUnwrap(statuses[row.expected], "\(row.rule): unknown status \(row.expected)")
            XCTAssertEqual(decide(row.current, row.min, row.latest), expected, "\(row.rule): \(inputs)")
            let modelled = ReferenceVersion.decide(current: reference(row.current), min: reference(row.min),
                                                   latest: reference(row.latest))
            XCTAssertEqual(modelled, expected, "reference model, \(row.rule): \(inputs)")
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
        XCTAssertEqual(GateFailure.Kind.allCases.count, 17, "the header has 17 error codes besides VG_OK")
        // The Python binding says the same for a code it does not know (test_binding.py).
        XCTAssertEqual(errorName(12345), "VG_EUNKNOWN")
        XCTAssertEqual(errorName(-18), "VG_EUNKNOWN")
    }

    private func decide(_ current: String?, _ min: String?, _ latest: String?) -> GateStatus {
        withOptionalVersion(current) { current in
            withOptionalVersion(min) { min in
                withOptionalVersion(latest) { latest in
                    Gate.decide(current: current, minRequired: min, latest: latest)
                }
            }
        }
    }

    /// ReferenceVersion (FuzzRegressionTests.swift); nil text is absent.
    private func reference(_ text: String?) -> ReferenceVersion.Parsed? {
        text.flatMap { ReferenceVersion.parse(Array($0.utf8)) }
    }

    private func withOptionalVersion<R>(_ text: String?, _ body: (Version?) -> R) -> R {
        guard let text else { return body(nil) }
        return withVersion(text, body)
    }
}
