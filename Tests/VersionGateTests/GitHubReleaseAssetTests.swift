import XCTest
@testable import VersionGateCore

/// gh-releases-zsync: the release's URL on the API, and its asset named like the glob.
final class GitHubReleaseAssetTests: XCTestCase {
    func testReleaseURL() {
        XCTAssertEqual(GitHubReleaseAsset.releaseURL(endpoint: "https://api.github.com/", user: "a", repository: "b", tag: "latest"),
                       "https://api.github.com/repos/a/b/releases/latest")
        XCTAssertEqual(GitHubReleaseAsset.releaseURL(endpoint: "https://x", user: "a", repository: "b", tag: "v1.0 rc/1"),
                       "https://x/repos/a/b/releases/tags/v1.0%20rc%2F1")
    }

    func testGlob() {
        let rows: [(String, String, Bool)] = [
            ("Demo-2.0-x86_64.AppImage.zsync", "Demo-*-x86_64.AppImage.zsync", true),
            ("Demo-2.0-aarch64.AppImage.zsync", "Demo-*-x86_64.AppImage.zsync", false),
            ("Demo-2.0-x86_64.AppImage", "Demo-*-x86_64.AppImage.zsync", false),
            ("abc", "a?c", true), ("ac", "a?c", false), ("", "*", true), ("x", "", false),
            ("a-b-c", "*-*-*", true), ("aXbXc", "a*b*d", false), ("**", "\\*", false),
        ]
        for (name, glob, expected) in rows {
            XCTAssertEqual(GitHubReleaseAsset.matches(name, glob), expected, "\(name) ~ \(glob)")
        }
    }

    func testDownloadURL() throws {
        let release = Array(#"{"assets":[{"name":"Demo-2.0-x86_64.AppImage","browser_download_url":"https://h/a"},{"name":"Demo-2.0-x86_64.AppImage.zsync","browser_download_url":"https://h/z"}]}"#.utf8)
        XCTAssertEqual(try GitHubReleaseAsset.downloadURL(release: release, glob: "Demo-*.zsync").get(), "https://h/z")
        let refusals: [(String, String)] = [
            ("[]", "has no assets"), (#"{"assets":{}}"#, "has no assets"), ("{", "not JSON"),
            (#"{"assets":[{"name":"x.zsync"}]}"#, "has no download URL"),
            (#"{"assets":[{"name":"x.AppImage","browser_download_url":"https://h/a"}]}"#, "no asset"),
        ]
        for (body, expected) in refusals {
            switch GitHubReleaseAsset.downloadURL(release: Array(body.utf8), glob: "*.zsync") {
            case .success(let url): XCTFail("\(body): \(url)")
            case .failure(let failure): XCTAssertTrue(failure.message.contains(expected), "\(body): \(failure.message)")
            }
        }
    }
}
