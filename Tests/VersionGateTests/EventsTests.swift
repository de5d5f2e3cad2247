import XCTest
@testable import VersionGateCore
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// The pure pieces of events (docs/design.md, "Events"): the JSON text, the
/// prompt record and its update_confirmed rule, the funnel; and the record's
/// claim on real files: once, never for an older or equal version.
final class EventsTests: XCTestCase {
    func testEventJSONHasTheCommonMembersFirstThenTheKindsInOrder() throws {
        let context = EventJSON.Context(time: 1_800_000_000, source: "/etc/gate \"x\".json", platform: "linux",
                                        current: nil)
        let text = EventJSON.text(.decided, context, [("status", .string("OPTIONAL")), ("should_prompt", .bool(true))])
        XCTAssertEqual(text, #"{"event":"decided","time":"2027-01-15T08:00:00Z","source":"/etc/gate \"x\".json","#
                       + #""platform":"linux","current":null,"status":"OPTIONAL","should_prompt":true}"#)
        XCTAssertNotNil(try JSONValue.decode(Array(text.utf8))["event"])
        XCTAssertEqual(EventKind.updateConfirmed.rawValue, "update_confirmed")
        XCTAssertEqual(ReportedOutcome.allCases.map(\.rawValue),
                       ["shown", "update", "later", "skip", "dismissed", "store_opened", "store_open_failed"])
    }

    func testPromptRecordRoundTripsAndRejectsAnythingElse() {
        let record = PromptRecord(from: "1.0.40", promptedAt: 1_800_000_000, statusThen: .mandatory)
        XCTAssertEqual(String(decoding: record.bytes, as: UTF8.self), "1.0.40\n1800000000\nMANDATORY\n")
        XCTAssertEqual(PromptRecord(bytes: record.bytes), record)
        for bad in ["1.0.40\n1800000000\nUP_TO_DATE\n", "1.0.40\n1800000000\nMANDATORY", "nope\n1\nOPTIONAL\n",
                    " 1.0.40\n1\nOPTIONAL\n", "1.0.40\nsoon\nOPTIONAL\n", "1.0.40\n1\nOPTIONAL\nmore\n", ""] {
            XCTAssertNil(PromptRecord(bytes: Array(bad.utf8)), bad)
        }
        XCTAssertTrue(record.isConfirmed(by: "1.0.41"))
        XCTAssertTrue(record.isConfirmed(by: "2.0"))
        XCTAssertFalse(record.isConfirmed(by: "1.0.40"))
        XCTAssertFalse(record.isConfirmed(by: "1.0.40+build.7"), "build metadata is the same version")
        XCTAssertFalse(record.isConfirmed(by: "1.0.39"))
        XCTAssertFalse(record.isConfirmed(by: "not a version"))
        XCTAssertEqual(record.confirmedMembers(to: "1.0.41").map(\.0), ["from", "to", "prompted_at", "status_then"])
    }

    func testTheFunnelCountsPerVersionAndSaysWhatItIgnored() {
        var funnel = EventFunnel()
        funnel.add(lines: Array(("""
            {"event":"outcome","current":"1.10","outcome":"shown"}
            {"event":"outcome","current":"1.9","outcome":"shown"}
            {"event":"outcome","current":"1.9","outcome":"later"}
            {"event":"outcome","current":"1.9","outcome":"store_opened"}
            {"event":"decided","current":"1.9"}
            {"event":"update_confirmed","from":"1.9","to":"1.10"}
            {"event":"outcome","current":"1.9","outcome":"installed"}
            {"event":"some_future_kind"}
            [1, 2]

            """).utf8))
        XCTAssertEqual(funnel.row("1.9"), EventFunnel.Row(prompted: 1, later: 1, confirmed: 1))
        XCTAssertEqual(funnel.text, "version prompted later skip dismissed update confirmed\n"
                       + "1.9 1 1 0 0 0 1\n1.10 1 0 0 0 0 0\n# 3 lines not counted\n")
    }

    func testARecordIsClaimedOnceAndNeverByAnOlderVersion() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("vg-events-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let system = System(environment: CheckEnvironment(variables: ["XDG_STATE_HOME": home.path]),
                            files: POSIXFiles())
        let (writer, first, second) = (UpdateConfirmations(), UpdateConfirmations(), UpdateConfirmations())
        writer.recordPrompt(source: "s", platform: "linux", version: "1.0.40", status: .optional, now: 5, system)
        writer.recordPrompt(source: "s", platform: "linux", version: "1.0.40", status: .optional, now: 9, system)
        XCTAssertNil(first.claim(source: "s", platform: "linux", current: "1.0.40", system))
        XCTAssertNil(first.claim(source: "s", platform: "ios", current: "1.0.41", system), "another platform's")
        let claimed = second.claim(source: "s", platform: "linux", current: "1.0.41", system)
        XCTAssertEqual(claimed, PromptRecord(from: "1.0.40", promptedAt: 5, statusThen: .optional),
                       "the first prompt's time is kept")
        XCTAssertNil(first.claim(source: "s", platform: "linux", current: "1.0.41", system), "claimed already")
        XCTAssertNil(second.claim(source: "s", platform: "linux", current: "1.0.42", system))
        let left = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("versiongate").path)
        XCTAssertEqual(left, [], "the record and its claimed copy are gone")
    }
}
