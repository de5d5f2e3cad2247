import XCTest
@testable import VersionGateCore
@testable import VersionGateSystem

/// The package an app came from (docs/design.md, "Updating a distribution
/// package"): dpkg-query's answer read right, and an owner at another
/// version than the app's is not taken for the app.
final class PackageOwnerTests: XCTestCase {
    func testDpkgQueryOwnerLines() {
        XCTAssertEqual(PackageOwner.dpkgOwner("vgdemo: /usr/bin/vgdemo\n", path: "/usr/bin/vgdemo"), "vgdemo")
        XCTAssertEqual(PackageOwner.dpkgOwner("libc6:amd64: /usr/lib/x86_64-linux-gnu/libc.so.6\n",
                                              path: "/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc6")
        XCTAssertEqual(PackageOwner.dpkgOwner("diversion by dash from: /bin/sh\ndiversion by dash to: /bin/sh.distrib\n"
                                              + "dash: /bin/sh\n", path: "/bin/sh"), "dash")
        XCTAssertEqual(PackageOwner.dpkgOwner("a, b: /usr/share/x\n", path: "/usr/share/x"), "a")
        XCTAssertNil(PackageOwner.dpkgOwner("vgdemo: /usr/bin/vgdemo-old\n", path: "/usr/bin/vgdemo"))
        XCTAssertNil(PackageOwner.dpkgOwner("dpkg-query: no path found matching pattern /x\n", path: "/x"))
        XCTAssertNil(PackageOwner.dpkgOwner(": /x\n", path: "/x"))
    }

    /// This machine's own dpkg: dpkg-query belongs to dpkg, at dpkg's version only.
    func testTheOwnerCountsOnlyAtTheAppsVersion() throws {
        let path = "/usr/bin/dpkg-query"
        let installed = try XCTUnwrap(try String(contentsOfFile: "/var/lib/dpkg/status", encoding: .utf8)
            .components(separatedBy: "\n\n").first { $0.hasPrefix("Package: dpkg\n") }?
            .split(separator: "\n").first { $0.hasPrefix("Version: ") }?.dropFirst("Version: ".count))
        XCTAssertEqual(try PackageOwner.find(path: path, version: ChannelDocuments.upstream(String(installed)), output: ProgramOutput.read).get(), "dpkg")
        guard case .failure(let refusal) = PackageOwner.find(path: path, version: "0.0.1", output: ProgramOutput.read) else { return XCTFail("taken") }
        XCTAssertTrue(refusal.message.contains("belongs to dpkg"), refusal.message)
        guard case .failure(let none) = PackageOwner.find(path: "/nonexistent/program", version: "1.0", output: ProgramOutput.read) else {
            return XCTFail("an owner for a file nobody owns")
        }
        XCTAssertEqual(none.message, "no package owns /nonexistent/program")
    }

    /// A merged /usr: Debian 12's coreutils ships /bin/true, which the
    /// program's resolved path shows as /usr/bin/true (dpkg knows only the
    /// first; Debian 13's ships the second). Either way its owner is found.
    func testAnOwnerUnderMergedUsrIsFound() {
        guard case .failure(let refusal) = PackageOwner.find(path: "/usr/bin/true", version: "0.0.1", output: ProgramOutput.read) else {
            return XCTFail("taken")
        }
        XCTAssertTrue(refusal.message.contains("/usr/bin/true belongs to coreutils"), refusal.message)
    }
}
