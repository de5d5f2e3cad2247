import Foundation
import XCTest
@testable import VersionGateCore

/// The option table is the one declaration of every vg_client_set key; the
/// header's comment, the table in docs/api.md ("Options") and the man page's
/// list are its renderings. They must match it exactly. VG_WRITE_OPTION_DOCS=1
/// rewrites all three from the table.
final class OptionTableTests: XCTestCase {
    private static let root = TestFiles.tests.deletingLastPathComponent()

    func testTheHeaderDocumentsExactlyTheTable() throws {
        try checkBlock(in: "Sources/VersionGateC/include/versiongate.h", rendered: Self.headerBlock(),
                       begin: " * Options (generated from ClientOptions.table", end: " * (end of options)")
        // include/versiongate.h is a symlink to this file (Tests/c/run.sh), so rewriting it here
        // rewrites the installed header too.
    }

    func testTheAPIPageDocumentsExactlyTheTable() throws {
        try checkBlock(in: "docs/api.md", rendered: Self.markdownBlock(),
                       begin: "<!-- options: generated from ClientOptions.table", end: "<!-- end of options -->")
    }

    func testTheManPageDocumentsExactlyTheTable() throws {
        try checkBlock(in: "man/versiongate.1", rendered: Self.manBlock(),
                       begin: ".\\\" options: generated from ClientOptions.table", end: ".\\\" end of options")
    }

    func testKeysAreUniqueAndNoTestHookIsAccepted() {
        let keys = ClientOptions.table.map(\.key)
        XCTAssertEqual(Set(keys).count, keys.count, "a key is declared twice")
        XCTAssertGreaterThanOrEqual(keys.count, 22)
        for hook in ["fixed_time_s", "now", "clock", "time"] {
            var options = ClientOptions()
            XCTAssertThrowsError(try options.set(hook, "1"), hook)
        }
    }

    /// Every key takes its documented default back: NULL restores it.
    func testNilRestoresTheDefault() throws {
        for option in ClientOptions.table {
            var options = ClientOptions()
            try options.set(option.key, nil)
            XCTAssertEqual(options, ClientOptions(), option.key)
        }
    }

    // MARK: - renderings

    static func headerBlock() -> [String] {
        [" * Options (generated from ClientOptions.table; a test checks this block):"]
            + ClientOptions.table.flatMap { option in
                [" *   \"\(option.key)\": \(option.accepts); default \(defaultText(option)).",
                 " *       \(capitalized(option.summary))."]
            }
            + [" * (end of options)"]
    }

    /// docs/api.md, "Options": a Markdown table.
    static func markdownBlock() -> [String] {
        ["<!-- options: generated from ClientOptions.table; a test checks this block -->",
         "| option | accepts | default | what it does |", "|---|---|---|---|"]
            + ClientOptions.table.map { option in
                "| `\(option.key)` | \(option.accepts.replacingOccurrences(of: "|", with: "\\|")) | "
                    + "\(defaultText(option)) | \(option.summary) |"
            }
            + ["<!-- end of options -->"]
    }

    /// roff: a tagged paragraph per key; minus signs and backslashes escaped.
    static func manBlock() -> [String] {
        func roff(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        }
        return [".\\\" options: generated from ClientOptions.table; a test checks this block"]
            + ClientOptions.table.flatMap { option in
                [".TP", ".B \(roff(option.key))",
                 "\(roff(capitalized(option.summary))). Accepts \(roff(option.accepts)); default \(roff(defaultText(option)))."]
            }
            + [".\\\" end of options"]
    }

    private static func defaultText(_ option: OptionSpec) -> String {
        option.defaultText == "-" ? "none" : option.defaultText
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The lines from `begin` to `end` must be `rendered`.
    private func checkBlock(in path: String, rendered: [String], begin: String, end: String) throws {
        let url = Self.root.appendingPathComponent(path)
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        guard let first = lines.firstIndex(where: { $0.hasPrefix(begin) }),
              let last = lines[first...].firstIndex(where: { $0.hasPrefix(end) }) else {
            return XCTFail("\(path) has no generated options block (\(begin) … \(end)); expected:\n"
                           + rendered.joined(separator: "\n"))
        }
        let written = Array(lines[first...last])
        if written != rendered, ProcessInfo.processInfo.environment["VG_WRITE_OPTION_DOCS"] == "1" {
            let updated = Array(lines[..<first]) + rendered + Array(lines[(last + 1)...])
            try updated.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(written, rendered, "\(path) disagrees with ClientOptions.table; VG_WRITE_OPTION_DOCS=1 swift test "
                       + "--filter OptionTableTests rewrites it")
    }
}
