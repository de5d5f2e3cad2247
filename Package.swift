// swift-tools-version:6.0
// The shared library is built by scripts/build (static Swift runtime, SONAME,
// exported-symbol list); those flags live there because inside this manifest
// they would also apply to `swift test`'s executables.
//
// Targets are walls (docs/architecture.md, "The targets"): dependencies point one way,
// toward the core, and a wrong arrow does not compile.
//   VersionGateCore    pure: versions, the gate, documents and JSON, messages,
//                      URL rules, options. Standard library (and
//                      Synchronization) only: scripts/check_layers enforces it.
//   VersionGateWire    the helper's protocol and what crosses it: requests,
//                      answers, HTTP exchanges, deadlines, file identities,
//                      the cached config's codec. Only the core is below it.
//   VersionGateSystem  the machine: files, session markers, remote sources,
//                      store lookups, opening URLs, the client, and the
//                      host's side of the helper. No libcurl, no GIO.
//   VersionGate        the C ABI: @_cdecl exports and the one mapping of
//                      failures to vg_error codes; no logic.
//   VersionGateNetwork the helper's side: libcurl (CurlShim) and the portal
//                      (PortalShim). Only the helper links it.
//   VersionGateHelper  versiongate-helper, the executable the library starts.
import PackageDescription

let package = Package(
    name: "VersionGate",
    products: [
        .library(name: "versiongate", type: .dynamic, targets: ["VersionGate"]),
        .executable(name: "versiongate-helper", targets: ["VersionGateHelper"]),
    ],
    targets: [
        .target(name: "VersionGateC"),
        .target(name: "DynamicShim"),
        .target(name: "CurlShim", dependencies: ["DynamicShim"]),
        .target(name: "SystemShim"),
        .target(name: "CryptoShim", dependencies: ["DynamicShim"]),
        .target(name: "ExpatShim", dependencies: ["DynamicShim"]),
        .target(name: "PortalShim", dependencies: ["DynamicShim"]),
        .target(name: "VersionGateCore"),
        .target(name: "VersionGateWire", dependencies: ["VersionGateCore"]),
        .target(name: "VersionGateSystem", dependencies: ["VersionGateCore", "VersionGateWire", "SystemShim", "CryptoShim",
                                                          "ExpatShim"]),
        .target(name: "VersionGate", dependencies: ["VersionGateC", "VersionGateCore", "VersionGateWire", "VersionGateSystem"]),
        .target(name: "VersionGateNetwork", dependencies: ["VersionGateCore", "VersionGateWire", "VersionGateSystem", "CurlShim",
                                                           "PortalShim"]),
        .executableTarget(name: "VersionGateHelper", dependencies: ["VersionGateNetwork"]),
        .testTarget(name: "VersionGateTests", dependencies: ["VersionGate", "VersionGateCore", "VersionGateWire",
                                                           "VersionGateSystem", "VersionGateNetwork"]),
        // Benchmark harness (scripts/bench), built with -enable-testing.
        .executableTarget(name: "TransportBench", dependencies: ["VersionGateCore", "VersionGateWire", "VersionGateSystem",
                                                                 "VersionGateNetwork"],
                          path: "bench/TransportBench"),
        .executableTarget(name: "ZsyncScanBench", dependencies: ["VersionGateCore"], path: "bench/ZsyncScanBench"),
    ]
)
