import Foundation
import Synchronization
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// The System seam holds: files and processes can be replaced under the
/// library, and the library then touches nothing else.
final class SystemSeamTests: XCTestCase {
    /// Records every run and answers from a script.
    private final class ScriptedLauncher: ProcessLauncher {
        private let answers: [String: ProcessOutcome]
        private let runs = Mutex<[String]>([])
        init(_ answers: [String: ProcessOutcome]) { self.answers = answers }
        var arguments: [String] { runs.withLock { $0 } }
        func run(_ program: String, _ argument: String, until deadline: Deadline) -> ProcessOutcome {
            runs.withLock { $0.append("\(program) \(argument)") }
            return answers[argument] ?? .cannotStart(errno: 2)
        }
    }

    func testAnUnhandledStoreSchemeFallsBackToItsWebPageOnce() {
        let launcher = ScriptedLauncher(["appstream:org.example.App": .exited(3),
                                         "https://flathub.org/apps/org.example.App": .exited(0)])
        let result = URLOpener.open("appstream:org.example.App", policy: .standard,
                                    webFallback: URLOpener.webPage(for: "appstream:org.example.App"), timeoutMs: 1000,
                                    processes: launcher)
        XCTAssertEqual(result.outcome, .opened)
        XCTAssertEqual(launcher.arguments, ["xdg-open appstream:org.example.App",
                                            "xdg-open https://flathub.org/apps/org.example.App"])
    }

    func testARefusedURLRunsNothingAndAStatusNobodyHasIsNotSuccess() {
        let launcher = ScriptedLauncher(["https://flathub.org/apps/org.example.App": .statusUnavailable])
        XCTAssertEqual(URLOpener.open("javascript:alert(1)", policy: .standard, webFallback: nil, timeoutMs: 1000,
                                      processes: launcher).outcome, .refused)
        XCTAssertEqual(launcher.arguments, [])
        let unknown = URLOpener.open("https://flathub.org/apps/org.example.App", policy: .standard, webFallback: nil,
                                     timeoutMs: 1000, processes: launcher)
        XCTAssertEqual(unknown.outcome, .failed, "started, outcome unknown: never reported as opened")
    }

    /// A file system that refuses everything: the login session's marker
    /// cannot be made, so the process becomes the session.
    private final class RefusingFiles: FileSystem {
        let calls = Mutex<[String]>([])
        func identity(of path: String) -> FileIdentity? { nil }
        func readIfPresent(_ path: String, maxBytes: Int, trust: FileTrust) throws(GateFailure)
            -> (bytes: [UInt8], identity: FileIdentity)? {
            throw .config("\(path): refused by the test")
        }
        func replace(_ path: String, with bytes: [UInt8], durable: Bool) -> Bool { false }
        func remove(_ path: String) {}
        func rename(_ path: String, to newName: String) -> Bool { false }
        func createExclusively(_ path: String) -> ExclusiveCreation {
            calls.withLock { $0.append(path) }
            return .failed("refused by the test")
        }
        func privateBaseProblem(_ path: String) -> String? { nil }
        func lock(_ path: String, until deadline: Deadline) -> LockAttempt { .unavailable }
        func isRecentlyChanged(_ identity: FileIdentity) -> Bool { false }
        func names(in directory: String) -> [String] { [] }
    }

    func testTheSessionUsesTheSystemsFiles() throws {
        let files = RefusingFiles()
        let session = try XCTUnwrap(LoginSession(runtimeDirectory: "/run/user/4242", files: files))
        let key = "seam-\(UUID().uuidString)"
        let claim = session.claim(key, record: true)
        XCTAssertTrue(claim.shouldPrompt, "the process session answers the first time")
        XCTAssertEqual(claim.note, "refused by the test; OPTIONAL prompts once per process")
        XCTAssertFalse(ProcessSession.shared.claim(key, record: true).shouldPrompt, "…and remembers it")
        XCTAssertEqual(files.calls.withLock { $0.count }, 1)
        XCTAssertTrue(files.calls.withLock { $0 }.allSatisfy { $0.hasPrefix("/run/user/4242/versiongate/optional-") })
    }

    func testTheSandboxIsTheSystemsEnvironments() throws {
        func storeURL(_ variables: [String: String]) throws -> String? {
            let client = GateClient(system: System(environment: CheckEnvironment(variables: variables),
                                                   files: RefusingFiles()))
            try client.set("store", "flathub")
            try client.set("app_id", "org.example.App")
            return client.storeResolution().url
        }
        XCTAssertEqual(try storeURL(["FLATPAK_ID": "org.example.App"]), "https://flathub.org/apps/org.example.App")
        XCTAssertEqual(try storeURL([:]), "appstream:org.example.App", "no /.flatpak-info through these files")
    }

    func testAClientsXDGHomesAreResolvedWhenItIsMade() {
        let saved = getenv("XDG_CACHE_HOME").map { String(cString: $0) }
        defer { if let saved { setenv("XDG_CACHE_HOME", saved, 1) } else { unsetenv("XDG_CACHE_HOME") } }
        setenv("XDG_CACHE_HOME", "/vg-before", 1)
        let client = GateClient(system: System())
        setenv("XDG_CACHE_HOME", "/vg-after", 1)
        XCTAssertEqual(client.system.environment.cacheHome, "/vg-before")
        XCTAssertEqual(CheckEnvironment.current().cacheHome, "/vg-after", "not captured: resolved at each ask")
        let fixed = CheckEnvironment(variables: ["HOME": "/home/u", "XDG_STATE_HOME": "relative"])
        XCTAssertEqual(fixed.stateHome, "/home/u/.local/state", "a relative XDG_STATE_HOME is ignored")
        XCTAssertEqual(fixed.cacheHome, "/home/u/.cache")
        XCTAssertNil(CheckEnvironment(variables: [:]).capturingDirectories().stateHome)
    }

    func testALocalDocumentIsReadThroughTheSystemsFiles() throws {
        let client = GateClient(system: System(environment: CheckEnvironment(variables: [:]), files: RefusingFiles()))
        let path = try writeFile(makeTemporaryDirectory(self), "gate.json", #"{"min_required_version_linux": "9"}"#)
        try client.set("source", path)
        var version = "1.0"
        let result = version.withUTF8 { client.check(current: $0) }
        XCTAssertEqual(result.status, .upToDate, "the real file says MANDATORY; the seam's files refuse it")
        XCTAssertEqual(result.failure?.message, "\(path): refused by the test")
    }
}
