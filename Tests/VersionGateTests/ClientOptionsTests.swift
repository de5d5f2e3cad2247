import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

final class ClientOptionsTests: XCTestCase {
    func testValidValuesAreStored() throws {
        let rows: [(key: String, value: String, check: (ClientOptions) -> Bool)] = [
            ("source", "/etc/app/gate.json", { $0.source == .file(path: "/etc/app/gate.json") }),
            ("source", "relative/gate.json", { $0.source == .file(path: "relative/gate.json") }),
            ("source", "file:///etc/app/gate.json", { $0.source == .file(path: "/etc/app/gate.json") }),
            ("source", "FILE://localhost/etc/app/my%20gate.json", { $0.source == .file(path: "/etc/app/my gate.json") }),
            ("source", "https://config.example.com/gate.json", { $0.source == .document(url: "https://config.example.com/gate.json") }),
            ("source", "firebase://my-proj?api_key=AIza%2Dx&app_id=1:2:web:3", {
                $0.source == .firebase(projectID: "my-proj", apiKey: "AIza-x", appID: "1:2:web:3") }),
            ("timeout_ms", "250", { $0.timeoutMs == 250 }),
            ("cache_ttl_s", "0", { $0.cacheTTLSeconds == 0 }),
            ("max_stale_s", "7200", { $0.maxStaleSeconds == 7200 }),
            ("stale_while_revalidate_s", "0", { $0.staleWhileRevalidateSeconds == 0 }),
            ("stale_while_revalidate_s", "2592000", { $0.staleWhileRevalidateSeconds == 2_592_000 }),
            ("background_refresh", "process", { $0.backgroundRefresh == .process }),
            ("background_refresh", "off", { $0.backgroundRefresh == .off }),
            ("firebase_endpoint", "http://127.0.0.1:8080/", { $0.firebaseEndpoint == "http://127.0.0.1:8080" }),
            ("tls_ca_file", "/tmp/ca.pem", { $0.tlsCAFile == "/tmp/ca.pem" }),
            ("program", "/usr/bin/app", { $0.program == "/usr/bin/app" }),
            ("defaults", "/usr/share/app/gate.json", { $0.defaultsPath == "/usr/share/app/gate.json" }),
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
            ("source", "http://example.com/gate.json", "loopback"),
            ("source", "ftp://example.com/gate.json", "unsupported scheme"),
            ("source", "javascript:alert(1)", "unsupported scheme"),
            ("source", "data:,{}", "unsupported scheme"),
            ("source", "firebase://My_Project", "project id"),
            ("source", "firebase://p?colour=blue", "unknown parameter"),
            ("timeout_ms", "0", "timeout_ms"),
            ("timeout_ms", "+5", "timeout_ms"),
            ("timeout_ms", "60001", "timeout_ms"),
            ("cache_ttl_s", "-1", "cache_ttl_s"),
            ("stale_while_revalidate_s", "2592001", "stale_while_revalidate_s"),
            ("background_refresh", "fork", "background_refresh"),
            ("background_refresh", "thread", "background_refresh"),
            ("firebase_endpoint", "http://example.com", "loopback"),
            ("tls_ca_file", "ca.pem", "absolute"),
            ("program", "bin/app", "absolute"),
            ("program", "/usr/bin/a\u{1}b", "absolute"),
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

    /// Every option set, as given; a refused value or a reset leaves none.
    func testAssignmentsAreWhatWasSet() throws {
        var options = ClientOptions()
        try options.set("timeout_ms", "250")
        try options.set("source", "https://config.example.com/gate.json")
        try options.set("platform", "ios")
        XCTAssertThrowsError(try options.set("cache_ttl_s", "-1"))
        try options.set("platform", nil)
        XCTAssertEqual(options.assignments, ["source": "https://config.example.com/gate.json", "timeout_ms": "250"])
    }

    func testNilRestoresTheDefault() throws {
        var options = ClientOptions()
        try options.set("platform", "ios")
        try options.set("locale", "de")
        try options.set("session_scope", "process")
        try options.set("source", "/x")
        try options.set("timeout_ms", "10")
        try options.set("firebase_endpoint", "https://rc.example.com")
        for key in ["platform", "locale", "session_scope", "source", "timeout_ms", "firebase_endpoint"] {
            try options.set(key, nil)
        }
        XCTAssertEqual(options, ClientOptions())
    }
}

final class OptionErrorsAreOneLineTests: XCTestCase {
    /// Whatever a caller passes, vg_client_last_error is one safe line: no
    /// tab, line break, escape or bidi control from the value gets through.
    func testHostileValuesNeverReachTheMessageRaw() {
        let hostile = ["https://a\tb", "https://a\nb", "x\u{1B}[31mred", "\u{202E}gnp.exe", "a\u{2028}b", "\u{7F}\u{85}"]
        var refused = 0
        for option in ClientOptions.table {
            for value in hostile {
                var options = ClientOptions()
                do {
                    try options.set(option.key, value)  // e.g. a file name may hold U+202E: a path, not an error
                } catch {
                    refused += 1
                    let unsafe = error.message.unicodeScalars.filter {
                        $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || [0x2028, 0x2029, 0x202E].contains($0.value)
                    }
                    XCTAssertTrue(unsafe.isEmpty, "\(option.key): \(error.message.debugDescription)")
                }
            }
        }
        XCTAssertGreaterThan(refused, 100)
        var options = ClientOptions()
        XCTAssertThrowsError(try options.set("source", "https://a\tb")) { error in
            XCTAssertFalse((error as? GateFailure)?.message.contains("\t") ?? true)
        }
    }
}
