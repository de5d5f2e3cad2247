import Foundation
import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// The repository's loopback server (Tests/Server/loopback_server.py) as a
/// child process: real sockets on 127.0.0.1, stopped when the test ends (and
/// by itself if this process dies: it exits when its stdin closes).
final class LoopbackServer {
    let port: Int
    let scheme: String
    private let process: Process
    private let stdin: Pipe

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(_ test: XCTestCase, arguments: [String] = [], tls: (cert: String, key: String)? = nil) throws {
        let script = Self.repositoryRoot.appendingPathComponent("Tests/Server/loopback_server.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var args = ["python3", script, "--max-seconds", "120"] + arguments
        if let tls { args += ["--tls", tls.cert, tls.key] }
        process.arguments = args
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        scheme = tls == nil ? "http" : "https"

        // First line: {"port": N}
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let object = try JSONSerialization.jsonObject(with: line) as? [String: Any]
        guard let port = object?["port"] as? Int else {
            process.terminate()
            throw ServerDidNotStart(output: String(decoding: line, as: UTF8.self))
        }
        self.port = port
        let process = self.process, stdin = self.stdin
        test.addTeardownBlock {
            try? stdin.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
    }

    func url(_ path: String, host: String = "127.0.0.1") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    /// The requests the server recorded, oldest first.
    func requests(caFile: String? = nil) throws -> [[String: Any]] {
        var limits = TransportLimits()
        limits.caFile = caFile
        let response = try CurlTransport().send(HTTPRequest(url: url("/__requests")), limits: limits)
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }

    /// POST /__document: sets up (or updates) a gate document (Tests/Server/document_routes.py).
    @discardableResult
    func document(_ command: [String: Any]) throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: command)
        let response = try CurlTransport().send(HTTPRequest(url: url("/__document"), body: Array(body)),
                                                limits: TransportLimits())
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}

struct ServerDidNotStart: Error {
    let output: String
}
