/// Where `gh-releases-zsync|user|repo|tag|glob` update information points
/// (AppImageUpdate's convention): the release `tag` (`latest`: the newest
/// one) of `user/repo` on the GitHub REST API at `endpoint`, and in it the
/// first asset whose name matches `glob` (`*` and `?`), the .zsync file.
package enum GitHubReleaseAsset {
    /// The API URL of the release: `…/releases/latest` or `…/releases/tags/TAG`.
    package static func releaseURL(endpoint: String, user: String, repository: String, tag: String) -> String {
        let base = ASCII.withoutTrailingSlashes(endpoint) + "/repos/" + PercentEncoding.encoded(user) + "/"
            + PercentEncoding.encoded(repository) + "/releases/"
        return tag == "latest" ? base + "latest" : base + "tags/" + PercentEncoding.encoded(tag)
    }

    /// The download URL of the first asset named like `glob` in a release's
    /// JSON; a failure says what was missing.
    package static func downloadURL(release body: [UInt8], glob: String) -> Result<String, GateFailure> {
        let release: JSONValue
        do throws(GateDocumentError) { release = try JSONValue.decode(body) } catch {
            return .failure(.config("the GitHub release is not JSON: \(error.message)"))
        }
        guard case .array(let assets)? = release["assets"] else {
            return .failure(.config("the GitHub release has no assets"))
        }
        for asset in assets {
            guard case .string(let name)? = asset["name"], matches(name, glob) else { continue }
            guard case .string(let url)? = asset["browser_download_url"] else {
                return .failure(.config("the GitHub release's asset \(OneLine.quoted(name, max: 128)) has no download URL"))
            }
            return .success(url)
        }
        return .failure(.config("no asset of the GitHub release matches \(OneLine.quoted(glob, max: 128))"))
    }

    /// Shell-style `*` (any run) and `?` (any one byte); everything else literal.
    package static func matches(_ name: String, _ glob: String) -> Bool {
        let text = Array(name.utf8), pattern = Array(glob.utf8)
        var t = 0, p = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                t += 1; p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p; resume = t; p += 1
            } else if let star {
                p = star + 1; resume += 1; t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
