// swift-tools-version:6.0
// libFuzzer targets for VersionGate; Fuzz/README.md says what each checks.
// A separate package so the root's `swift build` / `swift test` never see
// them: they link only with -sanitize=fuzzer, which brings libFuzzer.
//
//   swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address
//
// (scripts/fuzz builds and runs them.) The flag must be given on the command
// line, not here: it then also instruments VersionGate itself, which is what
// libFuzzer needs coverage of.
import PackageDescription

let fuzzTargets = ["FuzzVersion", "FuzzDocument", "FuzzFirebase", "FuzzURL", "FuzzITunes", "FuzzMessage", "FuzzSignature", "FuzzMetainfo",
                   "FuzzZsync", "FuzzUpdInfo", "FuzzPolicy", "FuzzChannelEntry", "FuzzSnapd", "FuzzRealtime"]

let package = Package(
    name: "VersionGateFuzz",
    dependencies: [.package(name: "VersionGate", path: "..")],
    targets: [
        // The properties, shared with the regression XCTest: its one file is a
        // symlink to Tests/VersionGateTests/FuzzRegressionTests.swift, which does
        // `@testable import VersionGate` (debug builds enable testing).
        .target(
            name: "FuzzProperties",
            dependencies: [.product(name: "VersionGateModules", package: "VersionGate")],
            swiftSettings: [.define("VG_FUZZ_HARNESS")]
        ),
        // Declares libFuzzer's LLVMFuzzerRunDriver.
        .target(name: "FuzzDriver"),
        // LLVMFuzzerTestOneInput and the main that starts libFuzzer.
        .target(name: "FuzzMain", dependencies: ["FuzzDriver", "FuzzProperties"]),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzMain"]) }
)
