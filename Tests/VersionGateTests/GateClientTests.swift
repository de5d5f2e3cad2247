import Foundation
import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

final class GateClientTests: XCTestCase {
    override func setUpWithError() throws {
        try privateXDGHomes(self)
    }

    private let flat = #"{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41", "update_url_linux": "https://flathub.org/apps/com.example.Launcher"}"#

    private func client(_ path: String, _ options: [String: String] = ["session_scope": "process"]) throws -> GateClient {
        let client = GateClient()
        try client.set("source", path)
        for (key, value) in options { try client.set(key, value) }
        return client
    }

    private func check(_ client: GateClient, _ version: String, _ env: [String: String] = [:]) -> GateResult {
        var version = version
        return withLocale(env) { version.withUTF8 { client.check(current: $0) } }
    }

    func testTheThreeOutcomesOnAFlatDocument() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        let c = try client(path)
        let rows: [(version: String, status: GateStatus, dismiss: Bool)] = [
            ("1.0.38", .mandatory, false), ("1.0.40", .optional, true),
            ("1.0.41", .upToDate, false), ("2.0", .upToDate, false),
        ]
        for row in rows {
            let r = check(c, row.version)
            XCTAssertEqual(r.status, row.status, row.version)
            XCTAssertEqual(r.errorCode, 0, row.version)
            XCTAssertEqual(r.title == nil, row.status == .upToDate, row.version)
            XCTAssertEqual(r.message == nil, row.status == .upToDate, row.version)
            XCTAssertEqual(r.dismissLabel != nil, row.dismiss, row.version)
            XCTAssertEqual(r.storeURL?.string, row.status == .upToDate ? nil : "https://flathub.org/apps/com.example.Launcher")
            XCTAssertEqual(r.minRequired?.string, "1.0.39")
            XCTAssertEqual(r.latest?.string, "1.0.41")
            XCTAssertEqual(r.origin, .localDocument)
        }
    }

    /// An update's NOTHING_NEW (docs/design.md, "Asking the channel"): the
    /// client that updated decides its next check from the answer it keeps,
    /// with no file read back; the channel's cache it wrote tells a new client.
    func testAnUpdatesNothingNewDecidesTheNextCheckFromTheClientsMemory() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        let options = ["session_scope": "process", "distro_package": "vgdemo-not-installed"]
        let updated = try client(path, options)
        XCTAssertEqual(check(updated, "1.0.38").rule, .belowMinimum)
        updated.recordNothingNew(.package(name: "vgdemo"), commit: nil, version: "1.0.38")
        let cache = try XCTUnwrap(getenv("XDG_CACHE_HOME").map { String(cString: $0) + "/versiongate" })
        let written = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasPrefix("channel-") }
        XCTAssertFalse(written.isEmpty, "the channel's cache is written for the next launches")
        let next = try client(path, options)
        for (name, c) in [("a new client, from the cache", next), ("the same client", updated)] {
            let r = check(c, "1.0.38")
            XCTAssertEqual(r.status, .optional, name)
            XCTAssertEqual(r.rule, .channelBehind, name)
            XCTAssertEqual(r.decision.channel?.channel, "package", name)
            XCTAssertEqual(r.decision.channel?.version, "1.0.38", name)
        }
        for file in written { try FileManager.default.removeItem(atPath: cache + "/" + file) }
        XCTAssertEqual(check(updated, "1.0.38").rule, .channelBehind, "kept in memory: no file is read back")
        XCTAssertEqual(check(try client(path, options), "1.0.38").rule, .belowMinimum, "nothing kept elsewhere")
        // A Flatpak's answer needs the running commit; an AppImage's has no channel.
        let other = try client(path, options)
        other.recordNothingNew(.flatpak, commit: nil, version: "1.0.38")
        other.recordNothingNew(.appImage(path: "/x.AppImage"), commit: nil, version: "1.0.38")
        XCTAssertEqual(check(other, "1.0.38").rule, .belowMinimum)
        // The portal's, for the running commit: the same client's next check (its
        // cache is read back only inside a Flatpak, by the next launches).
        other.recordNothingNew(.flatpak, commit: "0123456789abcdef", version: "1.0.38")
        let r = check(other, "1.0.38")
        XCTAssertEqual(r.rule, .channelBehind)
        XCTAssertEqual(r.decision.channel?.name, "flatpak (its remote has nothing newer than commit 0123456789ab)")
    }

    /// A host checking several blocked versions in turn (docs/design.md, "The decision"): an
    /// earlier launch's "nothing newer" is read once per client and version,
    /// then decides from memory, whichever version came between.
    func testNothingNewerIsReadOncePerClientAndVersion() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        let options = ["session_scope": "process", "distro_package": "vgdemo-not-installed"]
        try client(path, options).recordNothingNew(.package(name: "vgdemo"), commit: nil, version: "1.0.38")
        let host = try client(path, options)
        let versions = ["1.0.38", "1.0.20", "0.9", "1.0.38", "1.0.20"]
        XCTAssertEqual(versions.map { check(host, $0).rule }, [.channelBehind, .belowMinimum, .belowMinimum,
                                                                 .channelBehind, .belowMinimum])
        let cache = try XCTUnwrap(getenv("XDG_CACHE_HOME").map { String(cString: $0) + "/versiongate" })
        for file in try FileManager.default.contentsOfDirectory(atPath: cache) where file.hasPrefix("channel-") {
            try FileManager.default.removeItem(atPath: cache + "/" + file)
        }
        XCTAssertEqual(versions.map { check(host, $0).rule }, [.channelBehind, .belowMinimum, .belowMinimum,
                                                                 .channelBehind, .belowMinimum],
                       "each version's answer (or its absence) was read once: no file is read again")
        // New settings are another key: read again, and the file is gone.
        try host.set("timeout_ms", "2500")
        XCTAssertEqual(check(host, "1.0.38").rule, .belowMinimum)
    }

    func testTheNothingNewMemoKeepsAFewVersionsAndTheUpdatesAnswerWins() {
        let answer = { (served: String) in ChannelAnswer(channel: "package", detail: "test", served: served) }
        var memo = NothingNewMemo()
        XCTAssertFalse(memo.lookup(VersionText("1.0")).known)
        XCTAssertNil(memo.read(VersionText("1.0"), nil), "the file had none")
        XCTAssertTrue(memo.lookup(VersionText("1.0")).known, "…and that is known")
        memo.updated(VersionText("1.0"), answer("1.0"))
        XCTAssertEqual(memo.lookup(VersionText("1.0")).answer?.version, "1.0", "an update's answer replaces the file's")
        XCTAssertEqual(memo.read(VersionText("1.0"), nil)?.version, "1.0", "a file read meanwhile does not win over it")
        // The checked version's inline bytes and the update's String are one version.
        var bytes = Array("1.0".utf8)
        let inline = bytes.withUnsafeBufferPointer { VersionText($0) }
        XCTAssertEqual(memo.lookup(inline).answer?.version, "1.0")
        for minor in 1...NothingNewMemo.capacity { _ = memo.read(VersionText("2.\(minor)"), nil) }
        XCTAssertFalse(memo.lookup(VersionText("1.0")).known, "the oldest goes first")
        XCTAssertTrue(memo.lookup(VersionText("2.\(NothingNewMemo.capacity)")).known)
        bytes = Array("2.1".utf8)
        XCTAssertTrue(memo.lookup(bytes.withUnsafeBufferPointer { VersionText($0) }).known)
    }

    func testEveryDocumentFailureFailsOpenWithAMessageNamingTheFile() throws {
        let dir = try makeTemporaryDirectory(self)
        let fifo = dir.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let zeroLink = dir.appendingPathComponent("zero").path
        try FileManager.default.createSymbolicLink(atPath: zeroLink, withDestinationPath: "/dev/zero")
        let rows: [(name: String, path: String, mentions: String)] = [
            ("missing", dir.appendingPathComponent("absent.json").path, "No such file"),
            ("directory", dir.path, "not a regular file"),
            ("fifo", fifo, "not a regular file"),
            ("/dev/zero", zeroLink, "not a regular file"),
            ("empty", try writeFile(dir, "empty.json", ""), "JSON"),
            ("invalid JSON", try writeFile(dir, "bad.json", "{\"min_required_version_linux\": "), "JSON"),
            ("array", try writeFile(dir, "array.json", "[\"1.0\"]"), "object"),
            ("too large", try writeFile(dir, "big.json", "{\"a\":\"" + String(repeating: "x", count: 1 << 20) + "\"}"), "limit"),
        ]
        for row in rows {
            let r = check(try client(row.path), "1.0.0")
            XCTAssertEqual(r.status, .upToDate, row.name)
            XCTAssertEqual(r.errorCode, -3, row.name)
            let message = r.errorMessage?.string ?? ""
            XCTAssertTrue(message.contains(row.path), "\(row.name): \(message)")
            XCTAssertTrue(message.contains(row.mentions), "\(row.name): \(message)")
            XCTAssertNil(r.origin, row.name)
            XCTAssertEqual(r.rule, .failOpen, row.name)
        }
    }

    func testNoSourceAndInvalidCurrentFailOpen() throws {
        let none = check(GateClient(), "1.0.0")
        XCTAssertEqual(none.status, .upToDate)
        XCTAssertEqual(none.errorCode, -3)

        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        for bad in ["", "1..2", "1.0b1", "\u{FF11}.0", String(repeating: "1", count: 300)] {
            let r = check(try client(path), bad)
            XCTAssertEqual(r.status, .upToDate, bad)
            XCTAssertEqual(r.errorCode, -2, bad)
            XCTAssertNil(r.current)
        }
    }

    func testAnUnusableThresholdIsIgnoredAndReported() throws {
        let dir = try makeTemporaryDirectory(self)
        let rows: [(doc: String, status: GateStatus, key: String)] = [
            (#"{"min_required_version_linux": 2.10, "latest_version_linux": "3.0"}"#, .optional, "min_required_version_linux"),
            (#"{"min_required_version_linux": "abc", "latest_version_linux": "3.0"}"#, .optional, "min_required_version_linux"),
            (#"{"min_required_version_linux": "3.0", "latest_version_linux": true}"#, .mandatory, "latest_version_linux"),
            (#"{"min_required_version_linux": "1.0", "update_url_linux": "http://evil.example/"}"#, .upToDate, "update_url_linux"),
        ]
        for (i, row) in rows.enumerated() {
            let r = check(try client(try writeFile(dir, "doc\(i).json", row.doc)), "2.0")
            XCTAssertEqual(r.status, row.status, row.doc)
            XCTAssertEqual(r.errorCode, -3, row.doc)
            XCTAssertTrue(r.errorMessage?.string.contains(row.key) == true, r.errorMessage?.string ?? "")
        }
    }

    func testPlatformSelectsTheKeysAndTheTemplateExportWorks() throws {
        let template = TestFiles.firebaseTemplate.path
        let linux = try client(template)
        XCTAssertEqual(check(linux, "2.0.9").status, .mandatory)
        XCTAssertEqual(check(linux, "2.4.0").status, .optional)
        XCTAssertEqual(check(linux, "2.4.1").status, .upToDate)
        let ios = try client(template, ["platform": "ios", "session_scope": "process"])
        XCTAssertEqual(check(ios, "1.9").status, .mandatory)
        XCTAssertEqual(check(ios, "2.1.0").status, .optional)
        let r = check(ios, "2.1.0")
        XCTAssertEqual(r.message?.string, "A new version is available. Please update to continue.")
        XCTAssertEqual(r.templateVersion, 42)
    }

    func testAChangedDocumentIsPickedUpAtOnceEvenAtTheSameSize() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = try writeFile(dir, "gate.json", #"{"latest_version_linux": "1.0.41"}"#)
        let c = try client(path)
        XCTAssertEqual(check(c, "1.0.41").status, .upToDate)
        try writeFile(dir, "gate.json", #"{"latest_version_linux": "1.0.42"}"#)
        XCTAssertEqual(check(c, "1.0.41").status, .optional)
        try FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(check(c, "1.0.41").errorCode, -3)
    }

    func testOptionalPromptsOncePerSessionAndMandatoryAlways() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = try writeFile(dir, "gate.json", flat)
        let runtime = try makeTemporaryDirectory(self).path
        // XDG: the runtime directory is the user's own, mode 0700 (else process scope).
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
        setenv("XDG_RUNTIME_DIR", runtime, 1)   // put back by privateXDGHomes
        for scope in ["process", "login"] {
            let c = try client(path, ["session_scope": scope])
            XCTAssertEqual([1, 2, 3].map { _ in check(c, "1.0.38").shouldPrompt }, [true, true, true], scope)
            // Each scope has its own source path key space only through its store, so use a new current version per scope.
            let version = scope == "process" ? "1.0.40" : "1.0.39"
            XCTAssertEqual([1, 2, 3].map { _ in check(c, version).shouldPrompt }, [true, false, false], scope)
        }
        let markers = try FileManager.default.contentsOfDirectory(atPath: runtime + "/versiongate")
        XCTAssertEqual(markers.count, 1, "one login marker for the one OPTIONAL prompt shown in login scope")
    }

    func testAnUpdateMessageFromTheDocumentIsSanitized() throws {
        let doc = #"{"latest_version_linux": "9", "update_message": "  Nova versão\u202E disponível\u0007\n  "}"#
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", doc)
        let r = check(try client(path), "1")
        XCTAssertEqual(r.message?.string, "Nova versão disponível")
    }

    func testLocaleComesFromTheOptionThenTheEnvironment() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        let english = check(try client(path), "1.0.38", [:])
        XCTAssertEqual(english.language, "en")
        let german = check(try client(path), "1.0.38", ["LANG": "de_DE.UTF-8"])
        XCTAssertEqual(german.language, "de")
        XCTAssertNotEqual(german.title?.string, english.title?.string)
        let option = check(try client(path, ["locale": "fr", "session_scope": "process"]), "1.0.38", ["LC_ALL": "de_DE"])
        XCTAssertEqual(option.language, "fr")
    }

    func testJSONHasEveryField() throws {
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", flat)
        let r = check(try client(path), "1.0.38")
        let object = try JSONSerialization.jsonObject(with: Data(r.jsonText.string.utf8)) as? [String: Any]
        XCTAssertEqual(object?["status"] as? String, "MANDATORY")
        XCTAssertEqual(object?["current"] as? String, "1.0.38")
        XCTAssertEqual(object?["error_name"] as? String, "VG_OK")
        XCTAssertEqual(object?["store_url"] as? String, "https://flathub.org/apps/com.example.Launcher")
        XCTAssertTrue(object?["dismiss_label"] is NSNull)
        XCTAssertEqual(object?["rule"] as? String, "below_minimum")
        XCTAssertEqual(object?["reason"] as? String, "1.0.38 is below min_required_version_linux 1.0.39")
        XCTAssertEqual(Set(object?.keys.map { $0 } ?? []), [
            "status", "should_prompt", "current", "min_required", "latest", "title", "message", "action_label",
            "dismiss_label", "skip_label", "store_url", "locale", "error", "error_name", "error_message", "source", "origin",
            "template_version", "config_age_s", "fetch_error", "fetch_error_message", "note", "store_web_fallback",
            "store_note", "rollout_percent", "rule", "reason", "blocked_versions", "min_required_effective_at",
            "rollout_bucket", "release_notes", "blocked_versions_key", "latest_key", "min_required_key",
            "min_required_effective_at_key", "rollout_percent_key", "channel", "channel_version",
            "managed", "managed_message", "managed_url", "policy_files", "proxy", "proxy_from", "install_kind",
        ])
        XCTAssertNotNil(object?["install_kind"] as? String, "how this test process was installed, never null here")
        XCTAssertEqual(object?["min_required_key"] as? String, "min_required_version_linux")
        XCTAssertEqual(object?["rollout_percent_key"] as? String, "latest_version_linux_rollout_percent")
    }
}
