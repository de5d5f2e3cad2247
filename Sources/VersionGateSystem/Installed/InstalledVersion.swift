import VersionGateCore
import VersionGatePlatform

/// The installed version as option `installed_version_from` says to read
/// it (docs/design.md, "The installed version").
package enum InstalledVersion {
    /// A version file is one short line; anything longer is not one.
    package static let maxFileBytes = 4096

    /// The version's text (the check validates and trims it).
    package static func read(_ source: InstalledVersionSource, appID: String?, environment: CheckEnvironment,
                             files: any FileSystem) -> Result<String, GateFailure> {
        switch source {
        case .appStream(let id):
            guard let id = id ?? appID else {
                return .failure(.invalidArgument("installed_version_from appstream needs an id: "
                                                 + "appstream:ID or the app_id option"))
            }
            return AppStreamReader.installedVersion(id: id, environment: environment, files: files)
        case .file(let path):
            let bytes: [UInt8]
            do {
                bytes = try files.read(path, maxBytes: maxFileBytes, trust: .document).bytes
            } catch {
                return .failure(.installedVersion(error.message))
            }
            let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
            guard let text = String(validating: line, as: UTF8.self) else {
                return .failure(.installedVersion("\(path): the first line is not UTF-8"))
            }
            return .success(text)
        }
    }
}
