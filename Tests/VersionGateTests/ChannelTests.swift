import XCTest
@testable import VersionGateCore

/// Asking the channel (docs/design.md, "Asking the channel"): the rule on
/// a channel's answer, and what each channel's body says it serves.
final class ChannelTests: XCTestCase {
    private func decide(_ current: String, _ values: [String: String], _ answer: ChannelAnswer) -> Decision {
        let snapshot = GateSnapshot(config: GateConfig(values: values), platform: "linux", documentName: "t")
        var bytes = current
        return bytes.withUTF8 { Decision(current: $0, snapshot: snapshot).judged(by: answer) }
    }

    private let gate = ["min_required_version_linux": "1.0.30", "latest_version_linux": "1.0.40"]

    func testBehindIsOptionalAtOrAboveItIsMandatory() {
        let behind = decide("1.0.20", gate, ChannelAnswer(channel: "snap", detail: "x", served: "1.0.29"))
        XCTAssertEqual(behind.status, .optional)
        XCTAssertEqual(behind.rule, .channelBehind)
        XCTAssertEqual(behind.channel?.version, "1.0.29")
        XCTAssertTrue(behind.reason.contains("snap (x) serves 1.0.29"), behind.reason)
        for served in ["1.0.30", "1.0.30.0", "2.0"] {
            let at = decide("1.0.20", gate, ChannelAnswer(channel: "snap", detail: "x", served: served))
            XCTAssertEqual(at.status, .mandatory, served)
            XCTAssertEqual(at.rule, .belowMinimum, served)
        }
    }

    func testUnknownStrictAndBlockedKeepTheBlock() {
        let unknown = decide("1.0.20", gate, ChannelAnswer(channel: "apt", detail: "p", problem: "no lists"))
        XCTAssertEqual(unknown.rule, .belowMinimum)
        XCTAssertTrue(unknown.reason.contains("could not be asked (no lists)"), unknown.reason)
        let invalid = decide("1.0.20", gate, ChannelAnswer(channel: "apt", detail: "p", served: "1..2"))
        XCTAssertEqual(invalid.rule, .belowMinimum)
        XCTAssertNil(invalid.channel?.version)
        var strict = gate
        strict["strict_min_required_linux"] = "true"
        XCTAssertEqual(decide("1.0.20", strict, ChannelAnswer(channel: "snap", detail: "", served: "1.0.1")).rule,
                       .belowMinimum)
        strict["strict_min_required_linux"] = "maybe"   // reported, and strict
        XCTAssertEqual(decide("1.0.20", strict, ChannelAnswer(channel: "snap", detail: "", served: "1.0.1")).rule,
                       .belowMinimum)
        strict["strict_min_required_linux"] = "false"
        XCTAssertEqual(decide("1.0.20", strict, ChannelAnswer(channel: "snap", detail: "", served: "1.0.1")).rule,
                       .channelBehind)
        var blocked = gate
        blocked["blocked_versions_linux"] = "1.0.20"
        XCTAssertEqual(decide("1.0.20", blocked, ChannelAnswer(channel: "snap", detail: "", served: "1.0.1")).rule, .blocked)
        blocked["blocked_versions_linux"] = "1.0.31"
        XCTAssertEqual(decide("1.0.20", blocked, ChannelAnswer(channel: "snap", detail: "", served: "1.0.31")).rule,
                       .channelBehind, "a channel serving only a blocked version cannot comply")
    }

    func testOnlyABlockBelowTheMinimumAsks() {
        let snapshot = GateSnapshot(config: GateConfig(values: gate), platform: "linux", documentName: "t")
        for (version, asks) in [("1.0.20", true), ("1.0.35", false), ("1.0.50", false), ("bad", false)] {
            var bytes = version
            XCTAssertEqual(bytes.withUTF8 { Decision(current: $0, snapshot: snapshot).asksChannel }, asks, version)
        }
    }

    func testTheBodies() throws {
        let lookup = Array(#"{"results":[{"bundleId":"a.B","version":"2.1"}]}"#.utf8)
        XCTAssertEqual(try ChannelDocuments.appStoreVersion(lookup, bundleID: "a.b").get(), "2.1")
        XCTAssertThrowsError(try ChannelDocuments.appStoreVersion(lookup, bundleID: "c.d").get())
        XCTAssertThrowsError(try ChannelDocuments.appStoreVersion(Array("[1,".utf8), bundleID: "a.b").get())

        let snap = Array(#"""
        {"channel-map":[
          {"channel":{"architecture":"arm64","risk":"stable","track":"latest"},"version":"9"},
          {"channel":{"architecture":"amd64","risk":"edge","track":"latest"},"version":"8"},
          {"channel":{"architecture":"amd64","risk":"stable","track":"latest"},"version":"1.2"},
          {"channel":{"architecture":"amd64","risk":"stable","track":"2.x"},"version":"2.5"}]}
        """#.utf8)
        XCTAssertEqual(try ChannelDocuments.snapVersion(snap, architecture: "amd64", track: "latest", risk: "stable").get(), "1.2")
        XCTAssertEqual(try ChannelDocuments.snapVersion(snap, architecture: "arm64", track: "latest", risk: "stable").get(), "9")
        XCTAssertThrowsError(try ChannelDocuments.snapVersion(snap, architecture: "riscv64", track: "latest",
                                                              risk: "stable").get())

        let flathub = Array(#"{"releases":[{"version":"1.9"},{"version":"1.10","type":"stable"},{"version":"3","type":"development"},{"version":"x y"}]}"#.utf8)
        XCTAssertEqual(try ChannelDocuments.flathubVersion(flathub).get(), "1.10")

        let list = Array("""
        Package: other
        Version: 9.0
        Architecture: amd64

        Package: app
        Version: 2:1.0.30-1
        Architecture: amd64
        Description: x
         continued

        Package: app
        Version: 1.0.40-1
        Architecture: arm64

        Package: app
        Version: 1.0.31~rc1-2
        Architecture: all
        """.utf8)
        XCTAssertEqual(ChannelDocuments.aptVersions(list, package: "app", architecture: "amd64"),
                       ["1.0.30", "1.0.31~rc1"])
        XCTAssertEqual(ChannelDocuments.aptVersions(list, package: "ap", architecture: "amd64"), [])
        XCTAssertEqual(try ChannelDocuments.aptCandidate(["1.0.30", "1.0.9"], package: "app", architecture: "amd64").get(),
                       "1.0.30")
        XCTAssertEqual(ChannelDocuments.upstream("1.0"), "1.0")
        XCTAssertEqual(ChannelDocuments.upstream("3:1.0-rc1-4"), "1.0-rc1")
        XCTAssertEqual(ChannelArchitecture.debian(machine: "x86_64"), "amd64")
        XCTAssertEqual(ChannelArchitecture.debian(machine: "aarch64"), "arm64")
    }
}
