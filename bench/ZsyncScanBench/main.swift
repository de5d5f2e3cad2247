// Median throughput of the zsync seed scan (ZsyncMatcher.plan) and of the
// scan plus assembly (copy, MD4 of fetched blocks, SHA-1 of the output),
// over a seed file and a .zsync control file, the fetched ranges served
// from the target in memory. bench/zsync_scan.py runs it next to Debian's
// zsync client. Not a test.
// Usage: ZsyncScanBench CONTROL SEED TARGET [ROUNDS]
import Foundation
import VersionGateCore

let arguments = CommandLine.arguments
guard arguments.count >= 4, let control = try? ZsyncControl(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[1])))) else {
    FileHandle.standardError.write(Data("usage: ZsyncScanBench CONTROL SEED TARGET [ROUNDS]\n".utf8))
    exit(2)
}
let seed = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2])))
let target = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[3])))
let rounds = arguments.count > 4 ? Int(arguments[4]) ?? 5 : 5

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The body's result and its wall time in seconds.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    return (result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

let read: (UInt64, Int) -> [UInt8]? = { offset, count in Array(seed[Int(offset)..<(Int(offset) + count)]) }
let scanRuns = try (0..<rounds).map { _ in try timed { try ZsyncMatcher.plan(control, seedLength: UInt64(seed.count), read: read) } }
let plan = scanRuns[0].0
let scans = scanRuns.map(\.1)
let whole = try (0..<rounds).map { _ in
    try timed {
        let plan = try ZsyncMatcher.plan(control, seedLength: UInt64(seed.count), read: read)
        try ZsyncAssembler.assemble(control, plan: plan, readSeed: read,
                                    fetched: { Array(target[Int($0.lowerBound)..<Int($0.upperBound)]) }, write: { _ in true })
    }.1
}
let megabytes = Double(seed.count) / 1e6
print(String(format: "  ours: scan %.1f MB/s (median %.3f s of %d), scan+assemble %.1f MB/s (%.3f s); fetched %d of %d blocks",
             megabytes / median(scans), median(scans), rounds, megabytes / median(whole), median(whole),
             plan.fetchedBlockCount, plan.blockCount))
