// swift-tools-version:6.0
// The shared library is built by scripts/build (static Swift runtime, SONAME,
// exported-symbol list); those flags live there because inside this manifest
// they would also apply to `swift test`'s executables.
import PackageDescription

let package = Package(
    name: "VersionGate",
    products: [
        .library(name: "versiongate", type: .dynamic, targets: ["VersionGate"]),
    ],
    targets: [
        .target(name: "VersionGateC"),
        .target(name: "CurlShim"),
        .target(name: "SystemShim"),
        .target(name: "VersionGate", dependencies: ["VersionGateC", "CurlShim", "SystemShim"]),
        .testTarget(name: "VersionGateTests", dependencies: ["VersionGate"]),
        // Benchmark harness (scripts/bench), built with -enable-testing.
        .executableTarget(name: "TransportBench", dependencies: ["VersionGate"], path: "bench/TransportBench"),
    ]
)
