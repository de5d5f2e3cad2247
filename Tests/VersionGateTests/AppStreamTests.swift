import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// The installed version read from real AppStream files through the real
/// libexpat (docs/design.md, "The installed version").
final class AppStreamTests: XCTestCase {
    private let id = "com.example.Launcher"

    /// A data directory holding `metainfo/<id>.metainfo.xml` with `body`.
    private func dataDirectory(_ body: String, name: String? = nil, subdirectory: String = "metainfo") throws -> URL {
        let dir = try makeTemporaryDirectory(self)
        let metainfo = dir.appendingPathComponent(subdirectory)
        try FileManager.default.createDirectory(at: metainfo, withIntermediateDirectories: true)
        try writeFile(metainfo, name ?? "\(id).metainfo.xml", body)
        return dir
    }

    private func installed(_ directories: [URL]) -> Result<String, GateFailure> {
        let environment = CheckEnvironment(variables: ["XDG_DATA_DIRS": directories.map(\.path).joined(separator: ":")])
        return AppStreamReader.installedVersion(id: id, environment: environment, files: POSIXFiles())
    }

    private func component(_ releases: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <component type="desktop-application">
          <id>com.example.Launcher</id>
          <releases>
        \(releases)
          </releases>
        </component>
        """
    }

    private func failure(_ result: Result<String, GateFailure>, file: StaticString = #filePath, line: UInt = #line)
        -> GateFailure? {
        if case .failure(let failure) = result { return failure }
        XCTFail("expected a failure, got \(result)", file: file, line: line)
        return nil
    }

    func testTheGreatestStableReleaseWhateverTheFileOrder() throws {
        let dir = try dataDirectory(component("""
            <release version="1.0.39" date="2026-01-01"/>
            <release version="1.0.41" date="2026-03-01"/>
            <release version="1.0.40" date="2026-02-01"/>
        """))
        XCTAssertEqual(try installed([dir]).get(), "1.0.41", "newest-last and unordered lists: the greatest wins")
    }

    func testCharacterReferencesAndEntitiesAreDecoded() throws {
        let dir = try dataDirectory(component("""
            <release version="1&#46;2&#x2E;0"/>
            <release version="1.1.0"><description><p>Fixes &amp; more &lt;3</p></description></release>
        """))
        XCTAssertEqual(try installed([dir]).get(), "1.2.0")
    }

    func testAReleaseInACommentOrCDATAIsNotARelease() throws {
        let dir = try dataDirectory(component("""
            <!-- <release version="9.9.9"/> -->
            <release version="1.0.40"><description><![CDATA[<release version="8.0"/>]]></description></release>
        """))
        XCTAssertEqual(try installed([dir]).get(), "1.0.40")
    }

    func testDevelopmentAndSnapshotReleasesAreIgnored() throws {
        let dir = try dataDirectory(component("""
            <release version="2.0.0" type="development"/>
            <release version="1.9.0" type="snapshot"/>
            <release version="1.0.40" type="stable"/>
            <release version="1.0.39"/>
        """))
        XCTAssertEqual(try installed([dir]).get(), "1.0.40")
    }

    func testInvalidVersionsAreSkippedAndNoneLeftIsAnError() throws {
        let dir = try dataDirectory(component("""
            <release version="1.0.x"/>
            <release version="1.0.38"/>
        """))
        XCTAssertEqual(try installed([dir]).get(), "1.0.38")
        let none = try dataDirectory(component(#"<release version="next"/><release version="3" type="development"/>"#))
        let why = try XCTUnwrap(failure(installed([none])))
        XCTAssertEqual(why.kind, .installedVersion)
        XCTAssertTrue(why.message.contains("no stable release"), why.message)
    }

    func testOnlyTheComponentsOwnReleasesCount() throws {
        let dir = try dataDirectory(component(#"<release version="1.0.40"/>"#)
            .replacingOccurrences(of: "</component>", with: """
              <requires><releases><release version="5.0"/></releases></requires>
            </component>
            """))
        XCTAssertEqual(try installed([dir]).get(), "1.0.40")
    }

    func testExternalReleases() throws {
        let dir = try dataDirectory(component("").replacingOccurrences(
            of: "<releases>\n\n  </releases>", with: #"<releases type="external"/>"#))
        let releases = dir.appendingPathComponent("metainfo/releases")
        try FileManager.default.createDirectory(at: releases, withIntermediateDirectories: true)
        try writeFile(releases, "\(id).releases.xml", """
            <?xml version="1.0"?>
            <releases><release version="1.0.42"/><release version="1.0.41"/></releases>
            """)
        XCTAssertEqual(try installed([dir]).get(), "1.0.42")
        try FileManager.default.removeItem(at: releases.appendingPathComponent("\(id).releases.xml"))
        let why = try XCTUnwrap(failure(installed([dir])))
        XCTAssertTrue(why.message.contains("releases/\(id).releases.xml"), "names the missing file: \(why.message)")
    }

    func testATruncatedFileFailsNamingTheFileAndLine() throws {
        let whole = component(#"<release version="1.0.40"/>"#)
        let dir = try dataDirectory(String(whole.prefix(whole.count - 20)))
        let why = try XCTUnwrap(failure(installed([dir])))
        XCTAssertEqual(why.kind, .installedVersion)
        XCTAssertTrue(why.message.contains("\(id).metainfo.xml: line "), why.message)
    }

    func testEntityDeclarationsAreRefused() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE component [<!ENTITY a "1.0.40"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <component><releases><release version="&a;"/></releases></component>
            """
        let why = try XCTUnwrap(failure(installed([try dataDirectory(bomb)])))
        XCTAssertTrue(why.message.contains("declares an entity; refused"), why.message)
    }

    func testNotAComponentAndMissingFiles() throws {
        let dir = try dataDirectory(#"<releases><release version="1.0"/></releases>"#)
        XCTAssertTrue(try XCTUnwrap(failure(installed([dir]))).message.contains("not <component>"))
        let empty = try makeTemporaryDirectory(self)
        let why = try XCTUnwrap(failure(installed([empty])))
        XCTAssertTrue(why.message.contains("no AppStream metainfo for \(id)"), why.message)
        XCTAssertTrue(why.message.contains(empty.path), "says where it looked: \(why.message)")
    }

    func testSearchOrderAndLegacyNames() throws {
        let first = try dataDirectory(component(#"<release version="1.0.1"/>"#), name: "\(id).appdata.xml",
                                      subdirectory: "appdata")
        let second = try dataDirectory(component(#"<release version="2.0.0"/>"#))
        XCTAssertEqual(try installed([first, second]).get(), "1.0.1", "the first data directory holding one wins")
        XCTAssertEqual(try installed([second, first]).get(), "2.0.0")
    }

    func testAnIDThatIsNotReverseDNSNeverBecomesAPath() {
        let result = AppStreamReader.installedVersion(id: "../../etc/passwd", environment: CheckEnvironment(variables: [:]),
                                                      files: POSIXFiles())
        XCTAssertEqual(try? XCTUnwrap(failure(result)).kind, .invalidArgument)
    }

    func testDataDirectoriesByTheXDGRules() {
        XCTAssertEqual(AppStreamLocation.dataDirectories(nil), ["/usr/local/share", "/usr/share", "/app/share"])
        XCTAssertEqual(AppStreamLocation.dataDirectories(""), ["/usr/local/share", "/usr/share", "/app/share"])
        XCTAssertEqual(AppStreamLocation.dataDirectories("relative:also/relative"),
                       ["/usr/local/share", "/usr/share", "/app/share"])
        XCTAssertEqual(AppStreamLocation.dataDirectories("/opt/share::/app/share"), ["/opt/share", "/app/share"])
    }
}
