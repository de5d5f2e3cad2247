import XCTest
@testable import VersionGateCore

/// The administrator's policy, pure (docs/design.md, "The administrator's
/// policy"): a file is all or nothing, layers win key by key, an app's own
/// section wins over the top level, and `mandatory: warn` softens only a
/// block below the minimum.
final class AdministratorPolicyTests: XCTestCase {
    private func layer(_ json: String, _ file: String = "/etc/versiongate/policy.json") throws -> PolicyLayer {
        try PolicyLayer.parse(Array(json.utf8), file: file).get()
    }

    private func refusal(_ json: String) -> String? {
        if case .failure(let refusal) = PolicyLayer.parse(Array(json.utf8), file: "f") { return refusal.reason }
        return nil
    }

    func testEveryKeyAndItsType() throws {
        let parsed = try layer(#"""
            {"mandatory": "warn", "in_place_updates": false, "optional_prompts": false, "network": false,
             "managed_message": "Call IT", "managed_url": "https://it.example/update", "source": "/srv/gate.json",
             "future": 1, "apps": {"a.b": {"mandatory": "enforce", "later": true}}}
            """#)
        XCTAssertEqual(parsed.everyApp.mandatory?.value, .warn)
        XCTAssertEqual(parsed.everyApp.inPlaceUpdates?.value, false)
        XCTAssertEqual(parsed.everyApp.optionalPrompts?.value, false)
        XCTAssertEqual(parsed.everyApp.network?.value, false)
        XCTAssertEqual(parsed.everyApp.managedMessage?.value, "Call IT")
        XCTAssertEqual(parsed.everyApp.managedURL?.value, "https://it.example/update")
        XCTAssertEqual(parsed.everyApp.source?.value, "/srv/gate.json")
        XCTAssertEqual(parsed.apps["a.b"]?.mandatory?.value, .enforce)
        XCTAssertEqual(parsed.unknownKeys, ["apps.a.b.later", "future"])

        for (json, why) in [(#"{"mandatory": "maybe"}"#, #""mandatory" must be "enforce" or "warn""#),
                            (#"{"network": "no"}"#, #""network" must be a boolean"#),
                            (#"{"managed_message": 5}"#, #""managed_message" must be a string"#),
                            (#"{"apps": []}"#, #""apps" must be an object of objects"#),
                            (#"{"apps": {"a": 1}}"#, #""apps" must be an object of objects"#),
                            (#"{"apps": {"a": {"optional_prompts": 0}}}"#, #""apps.a.optional_prompts" must be a boolean"#),
                            (#"{"source": "ftp://x"}"#, #""source" is not a source"#),
                            (#"{"apps": {"a\nb": {"network": false}}}"#,
                             #""apps" names an empty app id or one with control characters"#),
                            (#"["mandatory"]"#, "not a JSON object"), (#"{"mandatory": "warn""#, "not valid JSON: unexpected end of input at line 1, column 21")] {
            XCTAssertEqual(refusal(json), why, json)
        }
        XCTAssertEqual(refusal(String(repeating: " ", count: PolicyLayer.maxBytes) + "{}"), "larger than 65536 bytes")
    }

    /// Where the JSON breaks, as the warning and `policy --check` say it:
    /// line and column 1-based, the column in bytes (so "é" counts two).
    func testBrokenJSONSaysTheLineAndColumn() {
        XCTAssertEqual(refusal("{\n  \"mandatory\": \"warn\"\n  \"network\": false\n}"),
                       #"not valid JSON: expected ',' or '}', found '"' at line 3, column 3"#)
        XCTAssertEqual(refusal("{\"managed_message\": \"é\" \"network\": false}"),
                       #"not valid JSON: expected ',' or '}', found '"' at line 1, column 26"#)
        XCTAssertEqual(refusal("{\"network\": fals}"), "not valid JSON: unexpected 'f' at line 1, column 13")
    }

    func testALinkThatIsNotHTTPSIsDroppedAloneAndAMessageIsCut() throws {
        let parsed = try layer(#"{"managed_url": "http://it.example", "mandatory": "warn", "managed_message": "\#(String(repeating: "x", count: 600))"}"#)
        XCTAssertNil(parsed.everyApp.managedURL)
        XCTAssertEqual(parsed.dropped, [#""managed_url" must be an https URL; ignored"#])
        XCTAssertEqual(parsed.everyApp.mandatory?.value, .warn)
        XCTAssertEqual(parsed.everyApp.managedMessage?.value.count, 500)
        XCTAssertNil(try layer(#"{"managed_url": "https://127.0.0.1/x"}"#).everyApp.managedURL)
    }

    func testALaterFileWinsKeyByKeyAndAnAppsSectionWinsOverTheTopLevel() throws {
        var policy = AdministratorPolicy()
        policy.add(try layer(#"{"mandatory": "warn", "network": false, "apps": {"a.b": {"optional_prompts": false}}}"#))
        policy.add(try layer(#"{"mandatory": "enforce", "apps": {"c.d": {"mandatory": "warn"}}}"#,
                             "/etc/versiongate/policy.d/50-x.json"))
        XCTAssertEqual(policy.files, ["/etc/versiongate/policy.json", "/etc/versiongate/policy.d/50-x.json"])
        let other = policy.keys(appID: "x.y")
        XCTAssertEqual(other.mandatory, .init(value: .enforce, file: "/etc/versiongate/policy.d/50-x.json"))
        XCTAssertEqual(other.network, .init(value: false, file: "/etc/versiongate/policy.json"))
        XCTAssertNil(other.optionalPrompts)
        XCTAssertEqual(policy.keys(appID: "a.b").optionalPrompts?.value, false)
        XCTAssertEqual(policy.keys(appID: "c.d").mandatory?.value, .warn, "its own section wins over a later top level")
        XCTAssertEqual(policy.lines.map { "\($0.key) = \($0.value)" },
                       ["mandatory = enforce", "network = false", "apps.a.b.optional_prompts = false",
                        "apps.c.d.mandatory = warn"])
    }

    func testWarnSoftensOnlyABlockBelowTheMinimum() {
        func decision(_ document: String, _ version: String = "1.0.20") -> Decision {
            let config = GateConfig(values: (try? JSONValue.decode(Array(document.utf8))).flatMap {
                if case .object(let members) = $0 { return members.compactMapValues { if case .string(let s) = $0 { s } else { nil } } }
                return nil
            } ?? [:])
            let snapshot = GateSnapshot(config: config, platform: "linux", documentName: "t")
            return Array(version.utf8).withUnsafeBufferPointer { Decision(current: $0, snapshot: snapshot) }
        }
        let below = decision(#"{"min_required_version_linux": "1.0.30"}"#)
        let accepted = below.accepted(byPolicy: "/p.json")
        XCTAssertEqual(accepted?.status, .optional)
        XCTAssertEqual(accepted?.rule, .policy)
        XCTAssertTrue(accepted?.reason.hasSuffix("the administrator's policy (/p.json) accepts it: mandatory warn") ?? false)
        XCTAssertNil(decision(#"{"min_required_version_linux": "1.0.30", "blocked_versions_linux": "1.0.20"}"#)
            .accepted(byPolicy: "/p.json"), "the kill switch stands")
        XCTAssertNil(decision(#"{"min_required_version_linux": "1.0.30", "strict_min_required_linux": "true"}"#)
            .accepted(byPolicy: "/p.json"), "a strict minimum stands")
        XCTAssertNil(decision(#"{"latest_version_linux": "1.0.30"}"#).accepted(byPolicy: "/p.json"), "OPTIONAL stays as it is")
    }
}
