import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// Snaps updated in place and installs nothing may update (docs/design.md,
/// "Updating a snap"): knowing a snap, reading snapd's envelopes and
/// changes, and what each refusal means. The exchange with a snapd is
/// Tests/python/test_snap_update.py's, against Tests/snap's world.
final class SnapUpdateTests: XCTestCase {
    func testSnapNamesFollowSnapdsRule() {
        for good in ["acme-notes", "a", "x1", "1x", "vlc", String(repeating: "a", count: 40)] {
            XCTAssertTrue(SnapName.isValid(good), good)
        }
        for bad in ["", "-a", "a-", "a--b", "Acme", "1", "123", "a_b", "a.b", "a b", "é", "a١",
                    String(repeating: "a", count: 41)] {
            XCTAssertFalse(SnapName.isValid(bad), bad)
        }
    }

    func testAProgramsPathNamesItsSnap() {
        let rows: [(String, String?)] = [
            ("/snap/bin/acme-notes", "acme-notes"), ("/snap/bin/acme-notes.cli", "acme-notes"),
            ("/snap/bin/acme-notes_beta", "acme-notes"), ("/snap/acme-notes/10/bin/acme-notes", "acme-notes"),
            ("/snap/acme-notes/current/usr/bin/x", "acme-notes"),
            ("/snap/bin", nil), ("/snap/bin/", nil), ("/snap/bin/a/b", nil), ("/snap/acme-notes", nil),
            ("/snap/acme-notes/10", nil), ("/snap//10/x", nil), ("/usr/bin/snap", nil), ("snap/bin/x", nil),
            ("/snap/bin/Bad", nil), ("/opt/snap/bin/x", nil),
        ]
        for (path, name) in rows { XCTAssertEqual(SnapName.owning(programPath: path), name, path) }
    }

    func testSnapdsEnvelopes() {
        func decode(_ status: Int, _ text: String) -> SnapdEnvelope? { SnapdEnvelope.decode(status: status, body: Array(text.utf8)) }
        XCTAssertEqual(decode(202, #"{"type":"async","status-code":202,"status":"Accepted","result":null,"change":"7"}"#),
                       .async(change: "7"))
        XCTAssertEqual(decode(200, #"{"type":"sync","status-code":200,"status":"OK","result":{"name":"x"}}"#),
                       .sync(.object(["name": .string("x")])))
        XCTAssertEqual(decode(400, #"{"type":"error","status-code":400,"status":"Bad Request","result":"#
                              + #"{"message":"snap \"x\" has no updates available","kind":"snap-no-update-available"}}"#),
                       .error(status: 400, kind: "snap-no-update-available", message: "snap \"x\" has no updates available"))
        XCTAssertEqual(decode(500, #"{"type":"error","result":{}}"#), .error(status: 500, kind: nil, message: "snapd answered 500"))
        for broken in ["", "{}", "[]", #"{"type":"async"}"#, #"{"type":"async","change":""}"#, #"{"type":"other"}"#,
                       #"{"type":"async","change":"7/../../v2/snaps"}"#, #"{"type":"async","change":"7 8"}"#,
                       "<html>", #"{"type":"sync""#] {
            XCTAssertNil(decode(200, broken), broken)
        }
        XCTAssertNil(SnapdEnvelope.decode(status: 200, body: [UInt8](repeating: 0x20, count: SnapdEnvelope.maxBytes + 1)))
    }

    func testAChangesProgressAndEnd() throws {
        func change(_ text: String) throws -> SnapdChange {
            try XCTUnwrap(SnapdChange(try JSONReader.read(Array(text.utf8))))
        }
        let doing = try change(#"{"id":"7","status":"Doing","ready":false,"tasks":["#
                               + #"{"status":"Done","progress":{"label":"","done":1,"total":1}},"#
                               + #"{"status":"Doing","progress":{"label":"Download","done":50,"total":100}},"#
                               + #"{"status":"Do","progress":{"label":"","done":0,"total":1}},"#
                               + #"{"status":"Do"}]}"#)
        XCTAssertEqual([doing.done, doing.total, doing.tasks, doing.percent], [51, 103, 4, 49])
        XCTAssertFalse(doing.ready)
        XCTAssertFalse(doing.succeeded)
        let done = try change(#"{"status":"Done","ready":true,"tasks":[]}"#)
        XCTAssertTrue(done.succeeded)
        XCTAssertEqual(done.percent, 100)
        let failed = try change(#"{"status":"Error","ready":true,"err":"cannot refresh: disk full","tasks":[]}"#)
        XCTAssertFalse(failed.succeeded)
        XCTAssertEqual(failed.error, "cannot refresh: disk full")
        // A hostile size is clamped, never trapped on.
        let huge = try change(#"{"status":"Doing","tasks":[{"progress":{"done":1e300,"total":1e300}},"#
                              + #"{"progress":{"done":-5,"total":-1}}]}"#)
        XCTAssertEqual(huge.percent, 99)
        XCTAssertNil(SnapdChange(.object([:])), "no status: not a change")
    }

    func testWhatEachRefusalMeans() {
        let rows: [(String?, UpdateOutcome)] = [
            ("snap-no-update-available", .nothingNew), ("login-required", .refused), ("auth-cancelled", .refused),
            ("snap-not-installed", .unavailable), ("snap-not-found", .unavailable), ("snap-change-conflict", .failed),
            ("something-new", .failed), (nil, .failed),
        ]
        for (kind, outcome) in rows {
            guard case .updated(let got, let message) = SnapdRefresh.refusal("acme", status: 403, kind: kind,
                                                                             message: "why") else {
                XCTFail("not an update's answer"); continue
            }
            XCTAssertEqual(got, outcome, kind ?? "nil")
            XCTAssertTrue(message.contains("acme"), message)
        }
    }

    func testNoSnapdIsUnavailableAndAsksNothing() {
        let missing = NSTemporaryDirectory() + "vg-no-snapd-\(getpid()).socket"
        let answer = SnapdRefresh.update(name: "acme", channel: nil, maxSeconds: 5, limits: TransportLimits(),
                                         socket: missing) { _ in XCTFail("no progress without snapd"); return true }
        guard case .updated(let outcome, let message) = answer else { return XCTFail("\(answer)") }
        XCTAssertEqual(outcome, .unavailable)
        XCTAssertTrue(message.contains("snapd is not running here"), message)
    }

    func testASnapUpdateRequestSurvivesItsWireForm() throws {
        for kind: HelperRequest.Update.Kind in [.snap(name: "acme-notes", channel: nil), .snap(name: "x", channel: "2/beta")] {
            let update = HelperRequest.Update(kind: kind, maxSeconds: 60, limits: TransportLimits(), gitHubAPI: "https://a",
                                              trustedKeys: nil)
            let message = try XCTUnwrap(HelperMessage.decode(HelperRequest.update(update).message().encoded()))
            guard case .update(let back) = try HelperRequest.decode(message).get() else { return XCTFail("not an update") }
            XCTAssertEqual(back.kind, kind)
        }
        var bad = HelperMessage()
        bad.add("mode", "update")
        bad.add("kind", "snap")
        bad.add("snap", "Not A Snap")
        bad.add("proxy", "")
        XCTAssertThrowsError(try HelperRequest.decode(bad).get())
    }

    /// Which installs update in place, and how; where nothing may, the remedy.
    func testWhatUpdatesWhere() {
        func kind(_ sandbox: Sandbox = Sandbox(), program: String? = nil, snapName: String? = nil, distro: String? = nil,
                  ostree: Bool = false) -> Result<HelperRequest.Update.Kind, InPlaceUpdate.Refusal> {
            InPlaceUpdate.kind(sandbox: sandbox, distroPackage: distro, program: program, version: "1.0",
                               snapName: snapName, snapChannel: "latest/candidate", ostreeBooted: ostree)
        }
        func refusal(_ found: Result<HelperRequest.Update.Kind, InPlaceUpdate.Refusal>) -> String {
            if case .failure(let refusal) = found { return refusal.message }
            return "updates: \(found)"
        }
        XCTAssertEqual(try kind(program: "/snap/bin/acme-notes").get(), .snap(name: "acme-notes", channel: "latest/candidate"))
        XCTAssertEqual(try kind(program: "/usr/bin/true", snapName: "acme").get(), .snap(name: "acme", channel: "latest/candidate"))
        XCTAssertEqual(try kind(Sandbox(kind: .snap, snapName: "acme", isClassicSnap: true)).get(),
                       .snap(name: "acme", channel: "latest/candidate"), "a classic snap asks snapd itself")
        let strictly = kind(Sandbox(kind: .snap, snapName: "acme"))
        if case .failure(let why) = strictly { XCTAssertEqual(why.outcome, .afterExit) } else { XCTFail("updates") }
        let strict = refusal(strictly)
        let junk = refusal(kind(Sandbox(kind: .snap, snapName: "../x y", isClassicSnap: true)))
        XCTAssertTrue(junk.contains("is not a snap's name"), junk)
        XCTAssertTrue(strict.contains("strict confinement") && strict.contains("once the app is closed"), strict)
        XCTAssertTrue(refusal(kind(program: "/nix/store/abc-acme-1.0/bin/acme")).contains("Nix configuration"))
        let ostree = refusal(kind(program: "/usr/bin/true", distro: "acme", ostree: true))
        XCTAssertTrue(ostree.contains("rpm-ostree upgrade, then restart"), ostree)
        let cask = refusal(kind(Sandbox(appImage: "/opt/homebrew/Caskroom/acme-notes/3.1.0/Acme.AppImage")))
        XCTAssertTrue(cask.contains("brew upgrade --cask acme-notes"), cask)
        XCTAssertEqual(try kind(Sandbox(appImage: "/home/u/Apps/Acme.AppImage")).get(), .appImage(path: "/home/u/Apps/Acme.AppImage"))
        XCTAssertEqual(try kind(distro: "acme").get(), .package(name: "acme"), "off ostree, the package")
    }

    func testTheInstallKindNamesWhatUpdateDoes() {
        func kind(_ sandbox: Sandbox = Sandbox(), program: String? = nil, snap: String? = nil, distro: String? = nil,
                  ostree: Bool = false) -> String {
            InPlaceUpdate.installKind(sandbox: sandbox, program: program, snapName: snap, distroPackage: distro,
                                      ostreeBooted: ostree)
        }
        XCTAssertEqual(kind(Sandbox(kind: .flatpak, isFlatpakApp: true)), "flatpak")
        XCTAssertEqual(kind(Sandbox(appImage: "/home/u/A.AppImage")), "appimage")
        XCTAssertEqual(kind(Sandbox(appImage: "/usr/local/Caskroom/a/1/A.AppImage")), "homebrew")
        XCTAssertEqual(kind(Sandbox(kind: .snap, snapName: "a")), "snap")
        XCTAssertEqual(kind(program: "/snap/bin/acme"), "snap")
        XCTAssertEqual(kind(program: "/bin/true", snap: "acme"), "snap")
        XCTAssertEqual(kind(program: "/nix/store/x-acme/bin/acme"), "nix")
        XCTAssertEqual(kind(program: "/usr/bin/true", ostree: true), "ostree")
        XCTAssertEqual(kind(program: "/usr/bin/true"), "package")
        XCTAssertEqual(kind(program: "/nonexistent/acme", distro: "acme"), "package")
        XCTAssertEqual(kind(program: "/nonexistent/acme"), "unknown")
    }

    func testAClassicSnapIsToldByItsMetadata() throws {
        let root = try makeTemporaryDirectory(self)
        for (name, yaml, classic) in [("c", "name: c\nconfinement: classic\n", true), ("q", "confinement: 'classic' # x\n", true),
                                      ("s", "name: s\nconfinement: strict\n", false), ("n", "name: n\n", false),
                                      ("i", "apps:\n  x:\n    confinement: classic\n", false)] {
            let meta = root.appendingPathComponent("\(name)/meta")
            try FileManager.default.createDirectory(at: meta, withIntermediateDirectories: true)
            try yaml.write(to: meta.appendingPathComponent("snap.yaml"), atomically: true, encoding: .utf8)
            let sandbox = Sandbox.detect(CheckEnvironment(variables: ["SNAP": root.appendingPathComponent(name).path,
                                                                      "SNAP_NAME": name]),
                                         files: POSIXFiles(), flatpakInfo: "/nonexistent")
            XCTAssertEqual(sandbox.isClassicSnap, classic, yaml)
        }
        let none = Sandbox.detect(CheckEnvironment(variables: ["SNAP": "/nonexistent/x", "SNAP_NAME": "x"]),
                                  files: POSIXFiles(), flatpakInfo: "/nonexistent")
        XCTAssertFalse(none.isClassicSnap, "unreadable: strict, the safe side")
    }
}
