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
}
