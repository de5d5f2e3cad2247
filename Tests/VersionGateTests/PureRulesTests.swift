import XCTest
@testable import VersionGateCore
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
}
