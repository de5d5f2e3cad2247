/// Where AppStream metainfo lives for a component id (docs/design.md, "The
/// installed version"): `metainfo/<ID>.metainfo.xml`, then the legacy
/// `.appdata.xml` name and `appdata/` directory, under each directory of
/// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`), then
/// `/app/share` (inside a Flatpak). Pure.
package enum AppStreamLocation {
    package static let defaultDataDirectories = ["/usr/local/share", "/usr/share"]
    /// Where a Flatpak mounts its app.
    package static let flatpakDataDirectory = "/app/share"

    /// `$XDG_DATA_DIRS` by the XDG rules: relative entries are ignored, an
    /// unset or empty (or all-relative) value means the default.
    package static func dataDirectories(_ variable: String?) -> [String] {
        let listed = (variable ?? "").split(separator: ":", omittingEmptySubsequences: true)
            .map(String.init).filter { $0.hasPrefix("/") }
        let directories = listed.isEmpty ? defaultDataDirectories : listed
        return directories.contains(flatpakDataDirectory) ? directories : directories + [flatpakDataDirectory]
    }

    /// The metainfo files to try for `id`, in order; `id` must have passed
    /// AppID.componentIDRefusal (it becomes part of a path).
    package static func metainfoCandidates(id: String, dataDirectories: [String]) -> [String] {
        dataDirectories.flatMap { directory in
            ["metainfo/\(id).metainfo.xml", "metainfo/\(id).appdata.xml",
             "appdata/\(id).metainfo.xml", "appdata/\(id).appdata.xml"].map { join(directory, $0) }
        }
    }

    /// `<releases type="external"/>`: the releases file beside a metainfo
    /// file found under `dataDirectory`.
    package static func externalReleases(id: String, dataDirectory: String) -> String {
        join(dataDirectory, "metainfo/releases/\(id).releases.xml")
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
