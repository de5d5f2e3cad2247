import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// The requirement clauses (docs/design.md, "Requirements"): parsing, each
/// fact met and unmet, and this machine's real values.
final class RequirementsTests: XCTestCase {
    private let debian = SystemFacts(glibc: "2.36", kernel: "6.1.0", arch: "x86_64", osIDs: ["debian"],
                                     osVersion: "12")
    private let ubuntu = SystemFacts(glibc: "2.35", kernel: "5.15.0", arch: "aarch64", osIDs: ["ubuntu", "debian"],
                                     osVersion: "22.04")

    private func unmet(_ text: String, _ facts: SystemFacts) -> String? {
        let (requirements, problems) = Requirements.parse(text)
        XCTAssertEqual(problems, [], text)
        return requirements.firstUnmet(facts).map { "\($0.clause.text) (\($0.actual))" }
    }

    func testEachFactMetAndUnmet() {
        XCTAssertNil(unmet("glibc>=2.35", debian))
        XCTAssertEqual(unmet("glibc>=2.36", ubuntu), "glibc>=2.36 (2.35)")
        XCTAssertNil(unmet("kernel>=6.1", debian), "6.1.0 >= 6.1 by the grammar (missing parts are 0)")
        XCTAssertEqual(unmet("kernel>6.1", debian), "kernel>6.1 (6.1.0)")
        XCTAssertNil(unmet("arch=x86_64|aarch64", ubuntu))
        XCTAssertEqual(unmet("arch=x86_64", ubuntu), "arch=x86_64 (aarch64)")
        XCTAssertNil(unmet("os=debian", ubuntu), "ID_LIKE counts")
        XCTAssertEqual(unmet("os=fedora|arch", debian), "os=fedora|arch (debian)")
        XCTAssertNil(unmet("os_version>=12", debian))
        XCTAssertEqual(unmet("os_version>=24.04", ubuntu), "os_version>=24.04 (22.04)")
        XCTAssertNil(unmet("os_version<23", ubuntu))
        XCTAssertNil(unmet("glibc!=2.34", ubuntu))
        XCTAssertEqual(unmet("glibc=2.34", ubuntu), "glibc=2.34 (2.35)")
        XCTAssertNil(unmet("glibc<=2.35", ubuntu))
    }

    func testEveryClauseMustHoldAndTheFirstUnmetIsNamed() {
        XCTAssertNil(unmet(" glibc>=2.35 , kernel >= 5.10,arch=x86_64|aarch64, os=debian, os_version>=12", debian))
        XCTAssertEqual(unmet("glibc>=2.31, kernel>=6.1, os=fedora", ubuntu), "kernel>=6.1 (5.15.0)")
        XCTAssertEqual(unmet("glibc>=2.31, os=fedora", ubuntu), "os=fedora (ubuntu debian)")
    }

    func testAnUnknownValueMeetsNothing() {
        XCTAssertEqual(unmet("os_version>=1", SystemFacts(osIDs: ["debian"])), "os_version>=1 (unknown)")
        XCTAssertEqual(unmet("os=debian", SystemFacts()), "os=debian (unknown)")
        XCTAssertEqual(unmet("arch=x86_64", SystemFacts()), "arch=x86_64 (unknown)")
        XCTAssertEqual(unmet("glibc>=2", SystemFacts()), "glibc>=2 (unknown)")
    }

    func testMalformedClausesAreLeftOutAndReported() {
        for (text, why) in [("glibc>>2", "not a valid version"), ("libc>=2", "names libc"), ("glibc", "no comparison"),
                            ("glibc>=", "not a valid version"), ("arch>=x86", "needs arch=NAME"),
                            ("os=Debian", "needs os=NAME"), ("os=debian||ubuntu", "needs os=NAME"),
                            ("", "is empty"), ("glibc>=2.3x", "not a valid version"), ("GLIBC>=2", "no comparison")] {
            let (requirements, problems) = Requirements.parse("kernel>=1, " + text)
            XCTAssertEqual(requirements.clauses.map(\.text), ["kernel>=1"], text)
            XCTAssertEqual(problems.count, 1, text)
            XCTAssertTrue(problems.first?.contains(why) == true, "\(text): \(problems)")
        }
        XCTAssertEqual(Requirements.parse("glibc>=2.35,").problems.count, 1, "a trailing comma is an empty clause")
    }

    func testKernelReleasesAndOSRelease() {
        XCTAssertEqual(SystemFacts.kernelVersion(release: "6.1.0-18-amd64"), "6.1.0")
        XCTAssertEqual(SystemFacts.kernelVersion(release: "5.15.0.rc1"), "5.15.0")
        XCTAssertEqual(SystemFacts.kernelVersion(release: "6.6."), "6.6")
        XCTAssertNil(SystemFacts.kernelVersion(release: "generic"))
        let values = OSRelease.parse(Array("""
            # comment
            NAME="Ubuntu"
            ID=ubuntu
            ID_LIKE='debian other'
            VERSION_ID="22.04"
            PRETTY_NAME="Ubuntu \\"Jammy\\" 22.04"
            BROKEN="unterminated
            bad key=1
            """.utf8))
        XCTAssertEqual(values["VERSION_ID"], "22.04")
        XCTAssertEqual(values["PRETTY_NAME"], "Ubuntu \"Jammy\" 22.04")
        XCTAssertNil(values["BROKEN"])
        XCTAssertNil(values["bad key"])
        XCTAssertEqual(OSRelease.ids(values), ["ubuntu", "debian", "other"])
    }

    /// This machine's values, read independently (getconf, /proc, uname(1), os-release by hand).
    func testThisMachinesRealValues() throws {
        let facts = SystemFactsReader.read(files: POSIXFiles())
        let glibc = try run("/usr/bin/getconf", "GNU_LIBC_VERSION")   // "glibc 2.36"
        XCTAssertEqual(facts.glibc.map { "glibc " + $0 }, glibc)
        let release = try String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)
            .trimmingCharacters(in: .newlines)
        XCTAssertEqual(facts.kernel, SystemFacts.kernelVersion(release: release))
        XCTAssertNotNil(facts.kernel)
        XCTAssertEqual(facts.arch, try run("/bin/uname", "-m"))
        let osRelease = try String(contentsOfFile: "/etc/os-release", encoding: .utf8)
        let id = osRelease.split(separator: "\n").first { $0.hasPrefix("ID=") }.map { String($0.dropFirst(3)) }
        XCTAssertEqual(facts.osIDs.first, id?.replacingOccurrences(of: "\"", with: ""))
    }

    private func run(_ program: String, _ argument: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = [argument]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
