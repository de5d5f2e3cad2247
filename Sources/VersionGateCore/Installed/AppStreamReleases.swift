/// What an AppStream metainfo file says about releases, gathered from its
/// elements in document order (docs/design.md, "The installed version").
/// Pure: the XML parser (libexpat, in the system layer) calls `start` and
/// `end`; comments, CDATA and references are the parser's business, so a
/// release inside a comment never reaches here.
///
/// Only `<release>` elements directly inside the document's `<releases>`
/// count: `component > releases > release` in a metainfo file,
/// `releases > release` in an external releases file.
package struct AppStreamReleases: Sendable {
    package struct Release: Sendable, Equatable {
        package let version: String
        /// `type`; absent means stable (AppStream's default).
        package let type: String?
    }

    /// Which file is being read: its root element differs.
    package enum Kind: Sendable {
        /// `<component>`, whose `<releases>` may say `type="external"`.
        case metainfo
        /// `metainfo/releases/<ID>.releases.xml`: `<releases>` at the root.
        case external
    }

    package let kind: Kind
    package private(set) var releases: [Release] = []
    /// `<releases type="external">`: the list lives in the releases file.
    package private(set) var releasesAreExternal = false
    /// The root element's name, once seen.
    package private(set) var root: String?
    private var path: [String] = []

    /// Deeper than any real metainfo file nests; deeper elements are not
    /// tracked (they cannot be releases) so a hostile file costs no memory.
    private static let maxDepth = 64

    package init(kind: Kind) { self.kind = kind }

    private var releasesPath: [String] { kind == .metainfo ? ["component", "releases"] : ["releases"] }

    package mutating func start(_ name: String, attributes: [(name: String, value: String)]) {
        if path.isEmpty && root == nil { root = name }
        if path == releasesPath, name == "release",
           let version = attributes.first(where: { $0.name == "version" })?.value {
            releases.append(Release(version: version, type: attributes.first(where: { $0.name == "type" })?.value))
        }
        if kind == .metainfo, path == ["component"], name == "releases",
           attributes.contains(where: { $0.name == "type" && $0.value == "external" }) {
            releasesAreExternal = true
        }
        path.append(path.count < Self.maxDepth ? name : "")
    }

    package mutating func end() {
        if !path.isEmpty { path.removeLast() }
    }

    /// Why the document is not what `kind` expects, or nil.
    package var shapeProblem: String? {
        let expected = kind == .metainfo ? "component" : "releases"
        guard let root else { return "has no root element" }
        return root == expected ? nil : "has <\(root)> at its root, not <\(expected)>"
    }

    /// The installed version: the greatest stable release by the version
    /// grammar (the file's order is not trusted). Development and snapshot
    /// releases, and versions the grammar rejects, are left out.
    package var installed: String? {
        var best: String?
        for release in releases where release.type == nil || release.type == "stable" {
            guard let order = Version.compare(release.version, best ?? release.version) else { continue }
            if best == nil || order > 0 { best = release.version }
        }
        return best.flatMap { text in withVersion(text) { $0?.trimmedText } }
    }
}
