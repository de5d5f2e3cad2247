import XCTest
@testable import VersionGateCore
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// Skip and remind (docs/design.md, "Sessions, skip and remind"), on real files under a temporary state home.
final class PromptStateTests: XCTestCase {
    private func state(_ test: XCTestCase, source: String = "/gate.json", platform: String = "linux") throws
        -> (PromptState, URL) {
        let dir = try makeTemporaryDirectory(test)
        let environment = CheckEnvironment(variables: ["XDG_STATE_HOME": dir.path])
        let made = try XCTUnwrap(PromptState(source: source, platform: platform, environment: environment,
                                             files: POSIXFiles()))
        return (made, dir)
    }

    private let prompt = { PromptClaim(shouldPrompt: true) }

    func testSkipSilencesThatLatestAndOlderOnesNotNewer() throws {
        let (state, _) = try state(self)
        XCTAssertTrue(state.claim(latest: "1.0.41", now: 100, remindAfter: 0, session: prompt).shouldPrompt)
        XCTAssertTrue(state.skip("1.0.41"))
        XCTAssertEqual(state.skippedVersion(), "1.0.41")
        let rows: [(latest: String?, prompts: Bool)] = [
            ("1.0.41", false), ("v1.0.41+build", false), ("1.0.40", false), ("1.0.42", true), ("1.0.41-rc.1", false),
            (nil, true), ("not a version", true),
        ]
        for row in rows {
            let claim = state.claim(latest: row.latest, now: 100, remindAfter: 0, session: prompt)
            XCTAssertEqual(claim.shouldPrompt, row.prompts, row.latest ?? "nil")
            if !row.prompts { XCTAssertEqual(claim.note, "version 1.0.41 skipped by the user") }
        }
    }

    func testSkipIsPerSourceAndPlatform() throws {
        let (state, dir) = try state(self)
        XCTAssertTrue(state.skip("2.0"))
        let environment = CheckEnvironment(variables: ["XDG_STATE_HOME": dir.path])
        for (source, platform) in [("/other.json", "linux"), ("/gate.json", "ios")] {
            let other = try XCTUnwrap(PromptState(source: source, platform: platform, environment: environment,
                                                  files: POSIXFiles()))
            XCTAssertNil(other.skippedVersion(), "\(source) \(platform)")
        }
    }

    func testRemindAfterKeepsQuietThenPromptsAgain() throws {
        let (state, _) = try state(self)
        var sessions = 0
        let session = { () -> PromptClaim in sessions += 1; return PromptClaim(shouldPrompt: true) }
        let rows: [(now: Int64, prompts: Bool)] = [(1000, true), (1001, false), (4599, false), (4600, true),
                                                   (4601, false), (100, true)]  // 100: the record is in the future
        for row in rows {
            XCTAssertEqual(state.claim(latest: "1.0.41", now: row.now, remindAfter: 3600, session: session).shouldPrompt,
                           row.prompts, "t=\(row.now)")
        }
        XCTAssertEqual(sessions, 3, "the session is asked only outside the remind window")
        XCTAssertEqual(state.lastPrompt(), 100)
    }

    func testRemindZeroIsTheSessionAlone() throws {
        let (state, _) = try state(self)
        XCTAssertFalse(state.claim(latest: "1", now: 5, remindAfter: 0, session: { PromptClaim(shouldPrompt: false) })
            .shouldPrompt)
        XCTAssertTrue(state.claim(latest: "1", now: 5, remindAfter: 0, session: prompt).shouldPrompt)
        XCTAssertNil(state.lastPrompt(), "nothing recorded without remind_after_s")
    }

    func testStateFilesOthersCouldWriteAreIgnored() throws {
        let (state, dir) = try state(self)
        XCTAssertTrue(state.skip("1.0.41"))
        let directory = dir.appendingPathComponent("versiongate").path
        XCTAssertEqual(chmod(directory, 0o777), 0)
        XCTAssertNil(state.skippedVersion(), "a directory others can write is never trusted")
        XCTAssertTrue(state.claim(latest: "1.0.41", now: 1, remindAfter: 0, session: prompt).shouldPrompt)
    }

    func testNoStateDirectory() {
        XCTAssertNil(PromptState(source: "s", platform: "linux", environment: CheckEnvironment(variables: [:]),
                                 files: POSIXFiles()))
        XCTAssertNil(PromptState(source: "s", platform: "linux",
                                 environment: CheckEnvironment(variables: ["XDG_STATE_HOME": "relative", "HOME": "rel"]),
                                 files: POSIXFiles()))
    }
}
