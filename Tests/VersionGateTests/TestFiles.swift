import Foundation
import XCTest

/// The repository's own test data: everything tests read lives under Tests/.
enum TestFiles {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    /// Wire-format fixtures, each with its `.source.txt` note (Tests/Fixtures/PROTOCOLS.md).
    static let fixtures = tests.appendingPathComponent("Fixtures")
    static let jsonTestSuite = fixtures.appendingPathComponent("JSONTestSuite/test_parsing")
    static let firebaseTemplate = fixtures.appendingPathComponent("firebase_template/client_template_version_gate.json")
    static let versions = fixtures.appendingPathComponent("versions.json")
}

/// Tests/Fixtures/versions.json: the version (docs/design.md, "Versions") and gate (docs/design.md, "The gate rule")
/// rows, one table shared with Tests/python/test_versions.py.
struct VersionTable: Decodable {
    struct Compare: Decodable { let a: String, b: String, expected: Int, rule: String }
    struct Valid: Decodable { let text: String, trimmed: String, rule: String }
    struct Invalid: Decodable { let text: String, rule: String }
    /// nil (JSON null) is an absent version; expected is MANDATORY, OPTIONAL or UP_TO_DATE.
    struct Decide: Decodable { let current: String?, min: String?, latest: String?, expected: String, rule: String }

    let compare: [Compare]
    /// Ascending: every pair of it is a compare row too.
    let chain: [String]
    let valid: [Valid]
    let invalid: [Invalid]
    let decide: [Decide]

    static func load() throws -> VersionTable {
        try JSONDecoder().decode(VersionTable.self, from: Data(contentsOf: TestFiles.versions))
    }
}

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

/// Runs `body` with this process's locale variables as `variables` say
/// (the others unset), as a host's environment would be at its check, and
/// puts them back. XCTest runs one test at a time.
func withLocale<R>(_ variables: [String: String], _ body: () -> R) -> R {
    let names = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]
    let saved = names.map { name in getenv(name).map { String(cString: $0) } }
    for name in names {
        if let value = variables[name] { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in zip(names, saved) {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return body()
}

/// This process's XDG homes moved into a temporary directory for `test`
/// (a client takes the process's environment, as the library's do), put
/// back at its end.
func privateXDGHomes(_ test: XCTestCase) throws {
    let dir = try makeTemporaryDirectory(test)
    for name in ["XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] {
        let saved = getenv(name).map { String(cString: $0) }
        setenv(name, dir.appendingPathComponent(name).path, 1)
        test.addTeardownBlock { if let saved { setenv(name, saved, 1) } else { unsetenv(name) } }
    }
}
