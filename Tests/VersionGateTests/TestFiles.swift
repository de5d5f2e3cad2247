import Foundation
import XCTest

/// A fresh directory under the system temp dir, removed when the test ends.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("vg-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    return dir
}

/// Writes `text` to `name` in `dir` and returns the path.
@discardableResult
func writeFile(_ dir: URL, _ name: String, _ text: String) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}
