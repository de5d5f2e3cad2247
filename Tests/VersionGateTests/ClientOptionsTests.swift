import XCTest
@testable import VersionGate

final class ClientOptionsTests: XCTestCase {
    func testValidValuesAreStored() throws {
        let rows: [(key: String, value: String, check: (ClientOptions) -> Bool)] = [
            ("source", "/etc/app/gate.json", { $0.sourcePath == "/etc/app/gate.json" }),
            ("source", "relative/gate.json", { $0.sourcePath == "relative/gate.json" }),
            ("source", "file:///etc/app/gate.json", { $0.sourcePath == "/etc/app/gate.json" }),
            ("source", "FILE://localhost/etc/app/my%20gate.json", { $0.sourcePath == "/etc/app/my gate.json" }),
            ("platform", "ios", { $0.platform == "ios" }),
            ("platform", "linux_arm64", { $0.platform == "linux_arm64" }),
            ("locale", "pt_BR.UTF-8@euro", { $0.locale == "pt_BR.UTF-8@euro" }),
            ("session_scope", "process", { $0.sessionScope == .process }),
            ("session_scope", "login", { $0.sessionScope == .login }),
        ]
        for row in rows {
            var options = ClientOptions()
            try options.set(row.key, row.value)
            XCTAssertTrue(row.check(options), "\(row.key)=\(row.value)")
        }
    }

    func testBadValuesAreRefusedAndLeaveTheOptionUnchanged() {
        let rows: [(key: String, value: String, mentions: String)] = [
            ("source", "", "source"),
            ("source", "https://example.com/gate.json", "unsupported scheme"),
            ("source", "file://server/share/gate.json", "file:///"),
            ("source", "file:///a%zz", "percent"),
            ("source", "file:///a%00b", "percent"),
            ("source", "/tmp/a\nb", "control"),
            ("source", String(repeating: "a", count: 4097), "4096"),
            ("platform", "", "platform"),
            ("platform", "Linux", "platform"),
            ("platform", "linux-x", "platform"),
            ("platform", String(repeating: "a", count: 33), "platform"),
            ("locale", "de DE", "locale"),
            ("locale", "", "locale"),
            ("session_scope", "forever", "session_scope"),
            ("colour", "blue", "unknown option \"colour\""),
        ]
        for row in rows {
            var options = ClientOptions()
            XCTAssertThrowsError(try options.set(row.key, row.value), "\(row.key)=\(row.value)") { error in
                let failure = error as? GateFailure
                XCTAssertEqual(failure?.code, -1)
                XCTAssertTrue(failure?.message.contains(row.mentions) == true, "\(row.key): \(failure?.message ?? "")")
            }
            XCTAssertEqual(options, ClientOptions(), "\(row.key)=\(row.value) changed the options")
        }
    }

    func testNilRestoresTheDefault() throws {
        var options = ClientOptions()
        try options.set("platform", "ios")
        try options.set("locale", "de")
        try options.set("session_scope", "process")
        try options.set("source", "/x")
        for key in ["platform", "locale", "session_scope", "source"] { try options.set(key, nil) }
        XCTAssertEqual(options, ClientOptions())
    }
}
