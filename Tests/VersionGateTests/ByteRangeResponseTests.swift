import XCTest
@testable import VersionGateCore

/// What an AppImage update reads of a Range request's answer: one range,
/// several (multipart/byteranges), or the whole file, checked strictly.
final class ByteRangeResponseTests: XCTestCase {
    private let file = Array((0..<100).map { UInt8($0) })

    private func multipartBody(_ ranges: [(Int, Int)], boundary: String = "THIS_STRING_SEPARATES",
                               preamble: String = "", epilogue: String = "") -> [UInt8] {
        var body = Array(preamble.utf8)
        for (first, last) in ranges {
            body += Array("--\(boundary)\r\nContent-Type: application/octet-stream\r\n".utf8)
            body += Array("Content-Range: bytes \(first)-\(last)/100\r\n\r\n".utf8)
            body += file[first...last]
            body += Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n\(epilogue)".utf8)
    }

    func testOneRange() throws {
        let parts = try ByteRangeResponse.parts(status: 206, contentType: "application/octet-stream",
                                                contentRange: "bytes 10-19/100", body: Array(file[10...19]),
                                                length: 100).get()
        XCTAssertEqual(parts, [.init(start: 10, bytes: Array(file[10...19]))])
    }

    func testSeveralRanges() throws {
        for type in ["multipart/byteranges; boundary=THIS_STRING_SEPARATES",
                     "Multipart/ByteRanges;boundary=\"THIS_STRING_SEPARATES\""] {
            let parts = try ByteRangeResponse.parts(status: 206, contentType: type, contentRange: nil,
                                                    body: multipartBody([(0, 3), (50, 50), (90, 99)], preamble: "ignored\r\n"),
                                                    length: 100).get()
            XCTAssertEqual(parts.map(\.start), [0, 50, 90], type)
            XCTAssertEqual(parts.map(\.bytes), [Array(file[0...3]), [50], Array(file[90...99])], type)
        }
    }

    /// Bytes that look like the boundary inside a part are its content: the length decides.
    func testABoundaryInsideAPartIsContent() throws {
        let boundary = "B"
        var body = Array("--B\r\nContent-Range: bytes 0-6/100\r\n\r\n".utf8) + Array("\r\n--B\r\n".utf8)
        body += Array("\r\n--B--\r\n".utf8)
        let parts = try ByteRangeResponse.parts(status: 206, contentType: "multipart/byteranges; boundary=\(boundary)",
                                                contentRange: nil, body: body, length: 100).get()
        XCTAssertEqual(parts, [.init(start: 0, bytes: Array("\r\n--B\r\n".utf8))])
    }

    func testAServerThatIgnoresRangeSendsTheWholeFile() throws {
        XCTAssertEqual(try ByteRangeResponse.parts(status: 200, contentType: nil, contentRange: nil, body: file,
                                                   length: 100).get(), [.init(start: 0, bytes: file)])
        XCTAssertThrowsError(try ByteRangeResponse.parts(status: 200, contentType: nil, contentRange: nil,
                                                         body: Array(file.prefix(99)), length: 100).get())
    }

    func testRefusals() {
        let type = "multipart/byteranges; boundary=S"
        let good = multipartBody([(0, 3)], boundary: "S")
        let rows: [(String, Int, String?, String?, [UInt8], String)] = [
            ("404", 404, nil, nil, [], "HTTP 404"),
            ("no Content-Range", 206, nil, nil, [1], "without Content-Range"),
            ("short body", 206, nil, "bytes 0-9/100", [1, 2], "announces 10 bytes"),
            ("other length", 206, nil, "bytes 0-1/101", [1, 2], "not bytes"),
            ("past the end", 206, nil, "bytes 99-100/100", [1, 2], "not bytes"),
            ("reversed", 206, nil, "bytes 5-4/100", [], "not bytes"),
            ("signed", 206, nil, "bytes +0-1/100", [1, 2], "not bytes"),
            ("other unit", 206, nil, "items 0-1/100", [1, 2], "not bytes"),
            ("huge", 206, nil, "bytes 0-99999999999999999999/100", [1, 2], "not bytes"),
            ("no boundary in body", 206, type, nil, Array("nothing".utf8), "without its boundary"),
            ("no part", 206, type, nil, Array("--S--\r\n".utf8), "no part"),
            ("cut short", 206, type, nil, Array(good.dropLast(11)), "cut short"),
            ("no part headers end", 206, type, nil, Array("--S\r\nContent-Range: bytes 0-3/100".utf8), "do not end"),
            ("empty headers", 206, type, nil, Array("--S\r\n\r\nabcd\r\n--S--".utf8), "without Content-Range"),
            ("longer than said", 206, type, nil,
             Array("--S\r\nContent-Range: bytes 0-1/100\r\n\r\nabc\r\n--S--".utf8), "longer than its Content-Range"),
            ("no CRLF after delimiter", 206, type, nil, Array("--Sx".utf8), "not followed by CRLF"),
        ]
        for (name, status, contentType, contentRange, body, expected) in rows {
            switch ByteRangeResponse.parts(status: status, contentType: contentType, contentRange: contentRange,
                                           body: body, length: 100) {
            case .success(let parts): XCTFail("\(name): accepted \(parts)")
            case .failure(let failure): XCTAssertTrue(failure.message.contains(expected), "\(name): \(failure.message)")
            }
        }
        // The good body passes: the refusals above are about what changed.
        XCTAssertNoThrow(try ByteRangeResponse.parts(status: 206, contentType: type, contentRange: nil, body: good,
                                                     length: 100).get())
    }

    func testBoundaryParameter() {
        XCTAssertEqual(ByteRangeResponse.boundary("multipart/byteranges; charset=x; boundary=abc"), "abc")
        XCTAssertNil(ByteRangeResponse.boundary("multipart/mixed; boundary=abc"))
        XCTAssertNil(ByteRangeResponse.boundary("multipart/byteranges"))
        XCTAssertNil(ByteRangeResponse.boundary("multipart/byteranges; boundary=" + String(repeating: "a", count: 71)))
    }
}
