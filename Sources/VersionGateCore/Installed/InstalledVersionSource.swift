/// Where a check reads the installed version when the host passes none
/// (option `installed_version_from`; docs/design.md, "The installed version").
package enum InstalledVersionSource: Sendable, Equatable {
    /// The greatest stable release in the AppStream metainfo of this id;
    /// nil: the `app_id` option's, at check time.
    case appStream(id: String?)
    /// The first line of this file (absolute path).
    case file(path: String)

    package static let accepts = "appstream, appstream:ID or file:ABSOLUTE_PATH"

    /// The option's value, or why it is refused.
    package static func parse(_ text: String) -> Result<Self, GateFailure> {
        if text == "appstream" { return .success(.appStream(id: nil)) }
        if text.hasPrefix("appstream:") {
            let id = String(text.dropFirst("appstream:".count))
            if let why = AppID.componentIDRefusal(id) {
                return .failure(.invalidArgument("installed_version_from: AppStream id \(OneLine.quoted(id, max: 64)): \(why)"))
            }
            return .success(.appStream(id: id))
        }
        if text.hasPrefix("file:") {
            let path = String(text.dropFirst("file:".count))
            guard path.hasPrefix("/") else {
                return .failure(.invalidArgument("installed_version_from: file:PATH needs an absolute path"))
            }
            return .success(.file(path: path))
        }
        return .failure(.invalidArgument("installed_version_from: \(OneLine.quoted(text, max: 64)) is not one of \(accepts)"))
    }
}
