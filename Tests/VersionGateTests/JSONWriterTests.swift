import Foundation
import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

final class JSONWriterTests: XCTestCase {
    /// Every y_* file of JSONTestSuite: read → write → read gives the same
    /// value, and what we write is JSON to Foundation's parser too.
    func testRoundTripThroughJSONTestSuite() throws {
        let directory = JSONTestSuiteTests.directory
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("y_") }
        XCTAssertGreaterThan(names.count, 90)
        for name in names {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: directory.appendingPathComponent(name).path))
            let value = try JSONValue.decode(Array(bytes))
            let written = value.encoded()
            XCTAssertEqual(try JSONValue.decode(written), value, name)
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(written), options: [.fragmentsAllowed]), name)
        }
    }

    func testStringsAndNumbers() {
        let rows: [(JSONValue, String, UInt)] = [
            (.string("a\"b\\c/d"), #""a\"b\\c/d""#, #line),
            (.string("\n\r\t\u{0}\u{1F}\u{7F}"), #""\n\r\t\u0000\u001f\#u{7F}""#, #line),
            (.string("é😀\u{2028}"), "\"é😀\u{2028}\"", #line),
            (.number(3600), "3600", #line),
            (.number(-0.0), "0", #line),
            (.number(0.1), "0.1", #line),
            (.number(-2.5e-7), "-2.5e-07", #line),
            (.number(1e300), "1e+300", #line),
            (.number(.infinity), "null", #line),
            (.array([.null, .bool(true), .array([]), .object([:])]), "[null,true,[],{}]", #line),
            (.object(["b": .number(1), "a": .object(["d": .null, "c": .string("")])]), #"{"a":{"c":"","d":null},"b":1}"#, #line),
        ]
        for (value, expected, line) in rows {
            XCTAssertEqual(String(decoding: value.encoded(), as: UTF8.self), expected, line: line)
        }
    }

    func testMembersKeepTheirOrderAndIntegersStayExact() {
        var json = JSONWriter()
        json.beginObject()
        json.member("z", Int64.max)
        json.member("y", Int64?.none)
        json.member("x", "text")
        json.member("w", false)
        json.member("v", JSONValue.array([.number(1), .number(2)]))
        json.endObject()
        XCTAssertEqual(json.text, #"{"z":9223372036854775807,"y":null,"x":"text","w":false,"v":[1,2]}"#)
    }
}
