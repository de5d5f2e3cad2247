#if canImport(Glibc)
import Glibc
#endif
import FuzzDriver
import FuzzProperties

/// The target this process fuzzes; set once, before libFuzzer starts.
nonisolated(unsafe) private var fuzzTarget = FuzzTarget.version

/// libFuzzer's per-input callback: the target's properties
/// (Tests/VersionGateTests/FuzzRegressionTests.swift), a trap when one fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOneInput(fuzzTarget, data, size)
}

/// Hands the process to libFuzzer's driver (it reads its `-flags` and
/// corpus directories from the command line) and exits with its status.
public func runFuzzer(_ target: FuzzTarget) -> Never {
    fuzzTarget = target
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
}
