import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

final class GateDocumentTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) -> Result<GateConfig, GateDocumentError> {
        Result { () throws(GateDocumentError) in try GateDocument.parse(bytes) }
    }
    private func parse(_ text: String) -> Result<GateConfig, GateDocumentError> { parse(Array(text.utf8)) }

    func testFlatDocuments() {
        let rows: [(String, GateConfig, UInt)] = [
            ("{}", GateConfig(), #line),
            (#"{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41", "update_message": "Nova versão\n"}"#,
             GateConfig(values: ["min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41", "update_message": "Nova versão\n"]), #line),
            // docs/design.md, "The gate rule": every JSON type but string is unusable, and reported.
            (#"{"a": 2.10, "b": 1, "c": true, "d": false, "e": null, "f": [], "g": ["1.0"], "h": {}, "i": {"x": "1"}, "s": "2.10"}"#,
             GateConfig(values: ["s": "2.10"], nonStringKeys: ["a", "b", "c", "d", "e", "f", "g", "h", "i"]), #line),
            (#"{"big": 123456789012345678901234567890, "tiny": 1e-300, "neg": -0, "under": [1e-400]}"#,
             GateConfig(nonStringKeys: ["big", "tiny", "neg", "under"]), #line),
            // "parameters" that is not an object does not make a template.
            (#"{"parameters": "x", "parameterGroups": [1]}"#,
             GateConfig(values: ["parameters": "x"], nonStringKeys: ["parameterGroups"]), #line),
            (#"{"": "", "e\u0301": "\ud83d\ude00", "nul": "a\u0000b"}"#,
             GateConfig(values: ["": "", "e\u{301}": "😀", "nul": "a\u{0}b"]), #line),
            // Duplicate keys: the first one is kept.
            (#"{"k": "1", "k": "2"}"#, GateConfig(values: ["k": "1"]), #line),
            (#"{"k": 1, "k": "2"}"#, GateConfig(nonStringKeys: ["k"]), #line),
            // Commas and brackets inside strings are text.
            (#"{"k": "1,]", "l": ",}"}"#, GateConfig(values: ["k": "1,]", "l": ",}"]), #line),
        ]
        for (text, expected, line) in rows {
            XCTAssertEqual(try parse(text).get(), expected, text, line: line)
        }
    }

    func testTemplateFixture() throws {
        let url = TestFiles.firebaseTemplate
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path), "missing fixture \(url.path)")
        XCTAssertEqual(try parse(Array(bytes)).get(), GateConfig(values: [
            "update_message": "A new version is available. Please update to continue.",
            "min_required_version_linux": "2.1.0",
            "latest_version_linux": "2.4.1",
            "min_required_version_ios": "2.0.0",
            "latest_version_ios": "2.4.0",
        ], templateVersion: 42))
    }

    func testTemplateParameters() {
        func doc(_ parameter: String) -> String { #"{"parameters": {"k": "# + parameter + "}}" }
        let rows: [(String, GateConfig, UInt)] = [
            (doc(#"{"defaultValue": {"value": "1.2.3"}}"#), GateConfig(values: ["k": "1.2.3"]), #line),
            (doc(#"{"defaultValue": {"value": ""}}"#), GateConfig(values: ["k": ""]), #line),
            (doc(#"{"defaultValue": {"useInAppDefault": true}, "conditionalValues": {"c": {"value": "9"}}}"#), GateConfig(), #line),
            (doc(#"{"defaultValue": {"useInAppDefault": true, "value": "9"}}"#), GateConfig(), #line),
            (doc(#"{"defaultValue": {"useInAppDefault": false, "value": "9"}}"#), GateConfig(values: ["k": "9"]), #line),
            (doc(#"{"description": "no default"}"#), GateConfig(), #line),
            (doc(#"{"defaultValue": {}}"#), GateConfig(), #line),
            (doc(#"{"defaultValue": {"rolloutValue": {"rolloutId": "r", "value": "9", "percent": 5}}}"#), GateConfig(), #line),
            (doc(#"{"defaultValue": {"value": 2.10}}"#), GateConfig(nonStringKeys: ["k"]), #line),
            (doc(#"{"defaultValue": {"value": null}}"#), GateConfig(nonStringKeys: ["k"]), #line),
            (doc(#"{"defaultValue": "1.0"}"#), GateConfig(nonStringKeys: ["k"]), #line),
            (doc(#""1.0""#), GateConfig(nonStringKeys: ["k"]), #line),
            // Groups nest parameters; top-level keys of a template are not values.
            (#"{"min_required_version_linux": "9", "parameterGroups": {"g": {"parameters": {"k": {"defaultValue": {"value": "1"}}}}, "h": 5, "i": {"parameters": []}}}"#,
             GateConfig(values: ["k": "1"]), #line),
            // A key defined twice is ambiguous: neither value is used.
            (#"{"parameters": {"k": {"defaultValue": {"value": "1"}}}, "parameterGroups": {"g": {"parameters": {"k": {"defaultValue": {"value": "2"}}}}}}"#,
             GateConfig(nonStringKeys: ["k"]), #line),
            (#"{"parameterGroups": {"g": {"parameters": {"k": {"defaultValue": {"value": "1"}}}}, "h": {"parameters": {"k": {"defaultValue": {"useInAppDefault": true}}}}}}"#,
             GateConfig(nonStringKeys: ["k"]), #line),
            (#"{"parameterGroups": {}}"#, GateConfig(), #line),
        ]
        for (text, expected, line) in rows {
            XCTAssertEqual(try parse(text).get(), expected, text, line: line)
        }
    }

    func testTemplateVersion() {
        let rows: [(String, Int64?, UInt)] = [
            (#"{"versionNumber": "42"}"#, 42, #line),
            (#"{"versionNumber": "0042"}"#, 42, #line),
            (#"{"versionNumber": "0"}"#, 0, #line),
            (#"{"versionNumber": "9223372036854775807"}"#, Int64.max, #line),
            (#"{"versionNumber": "9223372036854775808"}"#, nil, #line),
            (#"{"versionNumber": "99999999999999999999"}"#, nil, #line),
            (#"{"versionNumber": "+1"}"#, nil, #line),
            (#"{"versionNumber": "-1"}"#, nil, #line),
            (#"{"versionNumber": " 1"}"#, nil, #line),
            (#"{"versionNumber": "1.0"}"#, nil, #line),
            (#"{"versionNumber": ""}"#, nil, #line),
            (#"{"versionNumber": "١٢"}"#, nil, #line),
            (#"{"versionNumber": 42}"#, nil, #line),
            (#"{}"#, nil, #line),
            (#""42""#, nil, #line),
        ]
        for (version, expected, line) in rows {
            let text = #"{"parameters": {}, "version": "# + version + "}"
            XCTAssertEqual(try parse(text).get().templateVersion, expected, text, line: line)
        }
        XCTAssertNil(try parse(#"{"version": {"versionNumber": "42"}}"#).get().templateVersion, "flat documents have none")
    }

    func testRejectedDocuments() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let utf16 = Array(#"{"a":"1"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let rows: [([UInt8], GateDocumentError, UInt)] = [
            (Array("".utf8), .invalidJSON(detail: "unexpected end of input at line 1, column 1"), #line),
            (Array("{".utf8), .invalidJSON(detail: "expected a string key at line 1, column 2"), #line),
            (Array(#"{"a": }"#.utf8), .invalidJSON(detail: "unexpected '}' at line 1, column 7"), #line),
            (Array(#"{"a": "1"} {}"#.utf8), .invalidJSON(detail: "unexpected text after the value at line 1, column 12"), #line),
            (Array(#"{'a': '1'}"#.utf8), .invalidJSON(detail: "expected a string key at line 1, column 2"), #line),
            (Array(#"{"min_required_version_linux": "9.9",}"#.utf8), .invalidJSON(detail: "trailing comma at line 1, column 38"), #line),
            (Array("{\"a\": [1 ,\n\t]}".utf8), .invalidJSON(detail: "trailing comma at line 2, column 2"), #line),
            (Array("[1,]".utf8), .invalidJSON(detail: "trailing comma at line 1, column 4"), #line),
            (Array(#"{"a": 01}"#.utf8), .invalidJSON(detail: "leading zero in a number at line 1, column 8"), #line),
            (Array(#"{"a": 1e400}"#.utf8), .invalidJSON(detail: "number out of range at line 1, column 7"), #line),
            (Array(#"{"a": {"b": [1, "\x"]}}"#.utf8), .invalidJSON(detail: "invalid escape sequence at line 1, column 18"), #line),
            (Array(#"{"a": "\ud800"}"#.utf8), .invalidJSON(detail: "lone surrogate in \\u escape at line 1, column 8"), #line),
            (Array(#"{"a": "\udc00\ud800"}"#.utf8), .invalidJSON(detail: "lone surrogate in \\u escape at line 1, column 8"), #line),
            (Array(#"{"\udfaa": "x"}"#.utf8), .invalidJSON(detail: "lone surrogate in \\u escape at line 1, column 3"), #line),
            (Array("{\"a\": \"tab\there\"}".utf8), .invalidJSON(detail: "raw control character byte 0x09 in a string at line 1, column 11"), #line),
            (Array("[1]".utf8), .notAnObject, #line),
            (Array(#""a""#.utf8), .notAnObject, #line),
            (Array("1".utf8), .notAnObject, #line),
            (Array("null".utf8), .notAnObject, #line),
            (Array(#"{"a":"#.utf8) + [0xFF] + Array(#""}"#.utf8), .notUTF8, #line),
            (Array(#"{"a":"#.utf8) + [0xC3] + Array(#""}"#.utf8), .notUTF8, #line),
            (Array(#"{"a":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), .notUTF8, #line),  // UTF-8 of a surrogate
            (Array(#"{"a":"1"}"#.utf8) + [0], .notUTF8, #line),
            (utf16, .notUTF8, #line),
            ([0xFF, 0xFE] + utf16, .notUTF8, #line),
            (bom + bom + Array("{}".utf8), .invalidJSON(detail: "unexpected byte 0xEF at line 1, column 4"), #line),
            (Array(repeating: UInt8(ascii: "["), count: 100_000), .tooDeep(limit: 32), #line),
            (Array(String(repeating: #"{"a":"#, count: 100_000).utf8), .tooDeep(limit: 32), #line),
        ]
        for (bytes, expected, line) in rows {
            XCTAssertEqual(parse(bytes), .failure(expected), String(decoding: bytes.prefix(40), as: UTF8.self), line: line)
        }
    }

    func testBOMIsSkipped() {
        let text = #"{"min_required_version_linux": "1.0"}"#
        XCTAssertEqual(parse([0xEF, 0xBB, 0xBF] + Array(text.utf8)), parse(text))
        XCTAssertEqual(try parse(text).get().values, ["min_required_version_linux": "1.0"])
    }

    /// docs/design.md, "Deadlines and limits": 1 MiB is allowed, one byte more is not.
    func testSizeLimit() {
        let head = Array(#"{"update_message": ""#.utf8), tail = Array(#""}"#.utf8)
        let filler = GateDocument.maxBytes - head.count - tail.count
        let exact = head + Array(repeating: UInt8(ascii: "x"), count: filler) + tail
        XCTAssertEqual(exact.count, 1 << 20)
        XCTAssertEqual(try parse(exact).get().values["update_message"]?.utf8.count, filler)
        let over = head + Array(repeating: UInt8(ascii: "x"), count: filler + 1) + tail
        XCTAssertEqual(parse(over), .failure(.tooLarge(bytes: (1 << 20) + 1)))
        XCTAssertEqual(parse(over + Array(repeating: 0x20, count: 1 << 20)), .failure(.tooLarge(bytes: (2 << 20) + 1)))
    }

    func testNestingLimit() {
        func nested(_ depth: Int) -> String {
            #"{"a":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        XCTAssertEqual(try parse(nested(32)).get(), GateConfig(nonStringKeys: ["a"]))
        XCTAssertEqual(parse(nested(33)), .failure(.tooDeep(limit: 32)))
        // Brackets inside strings, escaped quotes included, are not nesting.
        let brackets = String(repeating: "[{", count: 1000)
        XCTAssertEqual(try parse(#"{"a": "\"\\"# + brackets + #"", "b": "x"}"#).get().values["b"], "x")
    }

    /// A host may call us on a thread with a small stack: the nesting limit
    /// keeps the reader's recursion shallow.
    func testHostileInputOnASmallStack() {
        let inputs: [[UInt8]] = [
            Array(repeating: UInt8(ascii: "["), count: 100_000),
            Array(String(repeating: #"{"a":"#, count: 31).utf8) + Array("1".utf8) + Array(String(repeating: "}", count: 31).utf8),
            Array(String(repeating: "[", count: 31).utf8) + Array(String(repeating: "]", count: 31).utf8),
        ]
        let done = expectation(description: "parsed on a 256 KiB stack")
        let thread = Thread {
            for input in inputs { _ = try? GateDocument.parse(input) }
            done.fulfill()
        }
        thread.stackSize = 256 << 10
        thread.start()
        wait(for: [done], timeout: 30)
    }

    func testErrorMessages() {
        let rows: [(GateDocumentError, String, UInt)] = [
            (.tooLarge(bytes: 1_048_577), "is too large (1048577 bytes, the limit is 1048576)", #line),
            (.notUTF8, "is not UTF-8 text", #line),
            (.tooDeep(limit: 32), "is nested deeper than 32 levels", #line),
            (.invalidJSON(detail: "syntax error"), "is not valid JSON (syntax error)", #line),
            (.notAnObject, "is not a JSON object", #line),
        ]
        for (error, message, line) in rows { XCTAssertEqual(error.message, message, line: line) }
    }

    func testKeyNames() {
        XCTAssertEqual(GateConfig.minRequiredKey(platform: "linux"), "min_required_version_linux")
        XCTAssertEqual(GateConfig.latestKey(platform: "ios"), "latest_version_ios")
        XCTAssertEqual(GateConfig.updateURLKey(platform: "android"), "update_url_android")
        XCTAssertEqual(GateConfig.updateMessageKey, "update_message")
    }
}
