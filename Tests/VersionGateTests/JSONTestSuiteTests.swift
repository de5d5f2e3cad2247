import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// nst/JSONTestSuite (Tests/Fixtures/JSONTestSuite, MIT licence) through the one
/// JSON entry point, `JSONValue.decode`: y_* must be accepted, n_* rejected,
/// i_* may go either way; none may crash or hang.
final class JSONTestSuiteTests: XCTestCase {
    /// Where our entry point is wrong: none. Exact: a new deviation fails.
    static let knownDeviations: Set<String> = []

    static var directory: URL { TestFiles.jsonTestSuite }

    func testEveryFile() throws {
        let directory = Self.directory
        let names = try XCTUnwrap(try? FileManager.default.contentsOfDirectory(atPath: directory.path),
                                  "JSONTestSuite not found at \(directory.path)").filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThan(names.count, 300, "JSONTestSuite at \(directory.path) looks incomplete")
        var deviations: Set<String> = []
        for name in names {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: directory.appendingPathComponent(name).path))
            let start = ContinuousClock.now
            let decoded = Result { () throws(GateDocumentError) in try JSONValue.decode(Array(bytes)) }
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "\(name) is slow")
            let accepted = (try? decoded.get()) != nil
            if (name.hasPrefix("y_") && !accepted) || (name.hasPrefix("n_") && accepted) {
                deviations.insert(name)
            }
            checkGateDocument(name, bytes: Array(bytes), decoded: decoded)
        }
        XCTAssertEqual(deviations, Self.knownDeviations,
                       "new: \(deviations.subtracting(Self.knownDeviations).sorted()), fixed: \(Self.knownDeviations.subtracting(deviations).sorted())")
    }

    /// JSON validity and "a gate document is an object" are separate rules:
    /// valid JSON that is not an object is `notAnObject`, never `invalidJSON`.
    private func checkGateDocument(_ name: String, bytes: [UInt8], decoded: Result<JSONValue, GateDocumentError>) {
        let parsed = Result { () throws(GateDocumentError) in try GateDocument.parse(bytes) }
        switch (decoded, parsed) {
        case (.success(.object), .success): break
        case (.success, .failure(.notAnObject)): break
        case (.failure(let error), .failure(let same)) where error == same: break
        default: XCTFail("\(name): JSON \(decoded) but gate document \(parsed)")
        }
    }
}
