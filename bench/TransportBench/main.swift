// Median wall time of one loopback GET through CurlTransport, next to
// `curl -s -o /dev/null` for the same URL in the same run. Not a test.
// Usage: TransportBench URL [ROUNDS]
import Foundation
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: TransportBench URL [ROUNDS]\n".utf8))
    exit(2)
}
let url = arguments[1]
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func milliseconds(_ body: () -> Void) -> Double {
    let start = Deadline.nowNanoseconds()
    body()
    return Double(Deadline.nowNanoseconds() - start) / 1e6
}

let transport = CurlTransport()
nonisolated(unsafe) var failures = 0
_ = try? transport.send(HTTPRequest(url: url), limits: TransportLimits())  // load libcurl once
let ours = (0..<rounds).map { _ in
    milliseconds {
        if (try? transport.send(HTTPRequest(url: url), limits: TransportLimits()))?.status != 200 { failures += 1 }
    }
}

// The curl command line pays for exec and loading libcurl every time, so
// also take curl's own measure of the transfer (-w %{time_total}).
func curlOnce() -> (wall: Double, transfer: Double) {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-o", "/dev/null", "-w", "%{time_total}", url]
    process.standardOutput = output
    let wall = milliseconds {
        try? process.run()
        process.waitUntilExit()
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard process.terminationStatus == 0, let seconds = Double(text) else {
        failures += 1
        return (wall, 0)
    }
    return (wall, seconds * 1000)
}
let curl = (0..<rounds).map { _ in curlOnce() }

func row(_ name: String, _ ms: Double) -> String {
    name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%9.3f ms", ms)
}
let ourMedian = median(ours)
let curlTransfer = median(curl.map(\.transfer)), curlWall = median(curl.map(\.wall))
print("loopback GET \(url), median of \(rounds)")
print(row("CurlTransport.send (in process)", ourMedian))
print(row("curl: its own time_total for the transfer", curlTransfer))
print(row("curl -s -o /dev/null: whole process", curlWall))
print(String(format: "ratio transport / curl time_total: %.2f", ourMedian / curlTransfer))
if failures > 0 { print("failures: \(failures)"); exit(1) }
