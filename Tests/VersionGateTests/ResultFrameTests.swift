import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateSystem

/// What results share (ResultFrame) is made again whenever what it was made
/// from changes: the options (`set`), the snapshot, the locale.
final class ResultFrameTests: XCTestCase {
    override func setUpWithError() throws {
        try privateXDGHomes(self)
    }

    private let flat = #"{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41", "update_url_linux": "https://flathub.org/apps/com.example.Launcher"}"#

    private func check(_ client: GateClient, _ version: String, _ env: [String: String] = [:]) -> GateResult {
        var version = version
        return withLocale(env) { version.withUTF8 { client.check(current: $0) } }
    }

    private func client(_ path: String) throws -> GateClient {
        let client = GateClient()
        try client.set("source", path)
        try client.set("session_scope", "process")
        return client
    }

    func testTheLocaleChangesTheTextsBetweenChecks() throws {
        let c = try client(try writeFile(makeTemporaryDirectory(self), "gate.json", flat))
        let german = check(c, "1.0.38", ["LANG": "de_DE.UTF-8"])
        let french = check(c, "1.0.38", ["LANG": "fr_FR.UTF-8"])
        XCTAssertEqual([german.language, french.language], ["de", "fr"])
        XCTAssertNotEqual(german.title?.string, french.title?.string)
        XCTAssertEqual(check(c, "1.0.38", ["LANG": "de_DE.UTF-8"]).title?.string, german.title?.string)
        // LANGUAGE counts too, and an UP_TO_DATE result reads its language when asked.
        XCTAssertEqual(check(c, "1.0.38", ["LANG": "de_DE.UTF-8", "LANGUAGE": "it"]).language, "it")
        XCTAssertEqual(withLocale(["LANG": "fr_FR.UTF-8"]) { check(c, "1.0.41").language }, "fr")
    }

    func testSetMakesTheSharedPartsAgain() throws {
        let c = try client(try writeFile(makeTemporaryDirectory(self), "gate.json", flat))
        let before = check(c, "1.0.38", ["LANG": "de_DE.UTF-8"])
        XCTAssertNil(before.failure)
        try c.set("locale", "fr")
        XCTAssertEqual(check(c, "1.0.38", ["LANG": "de_DE.UTF-8"]).language, "fr")
        // The URL policy's verdict on update_url is the options' too.
        try c.set("allowed_url_schemes", "snap")
        let refused = check(c, "1.0.41")
        XCTAssertEqual(refused.failure?.kind, .config)
        XCTAssertTrue(refused.errorMessage?.string.contains("update_url_linux refused") == true,
                      refused.errorMessage?.string ?? "")
        XCTAssertNil(check(c, "1.0.38").storeURL)
        try c.set("allowed_url_schemes", nil)
        XCTAssertNil(check(c, "1.0.41").failure)
        XCTAssertEqual(check(c, "1.0.38").storeURL?.string, "https://flathub.org/apps/com.example.Launcher")
    }

    func testANewSnapshotMakesTheSharedPartsAgain() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = try writeFile(dir, "gate.json", #"{"latest_version_linux": "1.0.41", "update_message": "first"}"#)
        let c = try client(path)
        XCTAssertEqual(check(c, "1.0.40").message?.string, "first")
        try writeFile(dir, "gate.json", #"{"latest_version_linux": "1.0.42", "update_message": "second"}"#)
        let second = check(c, "1.0.40")
        XCTAssertEqual(second.message?.string, "second")
        XCTAssertEqual(second.latest?.string, "1.0.42")
        try writeFile(dir, "gate.json", #"{"latest_version_linux": "1.0.42", "latest_version_linux_rollout_percent": "x"}"#)
        XCTAssertEqual(check(c, "1.0.42").failure?.kind, .config, "the snapshot's problem")
    }
}
