import XCTest
@testable import VersionGateCore

/// declarations/options.decl documents every vg_client_set key (scripts/generate
/// writes the header's list, docs/api.md and the man page from it); the option
/// table parses them. `declaredOptions` is the declaration, generated into
/// DeclaredOptions.generated.swift: the table must have exactly its keys, in its
/// order, and the defaults it documents.
final class OptionTableTests: XCTestCase {
    func testTheTableHasTheDeclaredKeysInOrder() {
        XCTAssertEqual(ClientOptions.table.map(\.key), declaredOptions.map(\.key))
    }

    func testEveryDefaultIsTheDeclaredOne() {
        for (option, declared) in zip(ClientOptions.table, declaredOptions) {
            XCTAssertEqual(option.read?(ClientOptions()), declared.defaultValue, option.key)
            XCTAssertEqual(try ClientOptions().value(option.key), declared.defaultValue, option.key)
        }
    }

    /// The error message of a bad installed_version_from names what the declaration says it accepts.
    func testInstalledVersionFromAcceptsWhatIsDeclared() {
        XCTAssertEqual(declaredOptions.first { $0.key == "installed_version_from" }?.accepts,
                       InstalledVersionSource.accepts)
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
}
