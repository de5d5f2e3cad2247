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
//   VersionGatePlatform what both processes do on the machine: bounded file
//                      reads, private directories, errno, the environment,
//                      libcrypto's signature check, a call's log lines.
//   VersionGateSystem  the host: the client, its environment and clocks,
//                      session markers, remote sources' cache and backoff,
//                      store lookups, opening URLs, and the host's side of
//                      the helper. No libcurl, no GIO, no fetching.
//   VersionGate        the C ABI: @_cdecl exports and the one mapping of
//                      failures to vg_error codes; no logic.
//   VersionGateNetwork the helper's side: libcurl (CurlShim), the fetchers
//                      (documents, Firebase), the portal and PackageKit
//                      (PortalShim). Only the helper links it; the system
//                      layer is not below it.
//   VersionGateHelper  versiongate-helper, the executable the library starts.
import PackageDescription

let package = Package(
    name: "VersionGate",
    products: [
        .library(name: "versiongate", type: .dynamic, targets: ["VersionGate"]),
        .executable(name: "versiongate-helper", targets: ["VersionGateHelper"]),
        // The fuzz package's (Fuzz/Package.swift): both sides' modules, linked
        // into its programs, so a property reaches the helper's parsers too.
        // Never built on its own, never installed.
        .library(name: "VersionGateModules", targets: ["VersionGate", "VersionGateNetwork"]),
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
        .target(name: "VersionGatePlatform", dependencies: ["VersionGateCore", "VersionGateWire", "SystemShim", "CryptoShim"]),
        .target(name: "VersionGateSystem", dependencies: ["VersionGateCore", "VersionGateWire", "VersionGatePlatform", "SystemShim",
                                                          "ExpatShim"]),
        .target(name: "VersionGate", dependencies: ["VersionGateC", "VersionGateCore", "VersionGateWire", "VersionGatePlatform",
                                                    "VersionGateSystem"]),
        .target(name: "VersionGateNetwork", dependencies: ["VersionGateCore", "VersionGateWire", "VersionGatePlatform", "SystemShim",
                                                           "CurlShim", "PortalShim"]),
        .executableTarget(name: "VersionGateHelper", dependencies: ["VersionGateNetwork"]),
        .testTarget(name: "VersionGateTests", dependencies: ["VersionGate", "VersionGateCore", "VersionGateWire",
                                                           "VersionGatePlatform", "VersionGateSystem", "VersionGateNetwork"]),
        // Benchmark harness (scripts/bench), built with -enable-testing.
        .executableTarget(name: "TransportBench", dependencies: ["VersionGateCore", "VersionGateWire", "VersionGatePlatform",
                                                                 "VersionGateSystem", "VersionGateNetwork"],
                          path: "bench/TransportBench"),
        .executableTarget(name: "ZsyncScanBench", dependencies: ["VersionGateCore"], path: "bench/ZsyncScanBench"),
    ]
)
