import XCTest
@testable import VersionGate
final class SmokeTests: XCTestCase { func testX() { XCTAssertEqual(1, 1) } }
