import VersionGateCore
import VersionGatePlatform

/// apt's lists, the distribution channel (docs/design.md, "Asking the
/// channel"): what `apt update` last fetched is what an upgrade would
/// install, read without privilege, a bus or the network.
package enum AptLists {
    package static let directory = MachinePaths.aptLists
    /// A Packages file of a whole archive is tens of megabytes.
    private static let maxListBytes = 512 << 20

    /// Every version of `package` for `architecture` the uncompressed
    /// `*_Packages` lists hold (compressed lists, `Acquire::GzipIndexes`,
    /// are not read).
    package static func versions(of package: String, architecture: String, files: any FileSystem,
                                 directory: String = directory) -> [String] {
        var versions: [String] = []
        for name in files.names(in: directory).filter({ $0.hasSuffix("_Packages") }).sorted() {
            guard let bytes = try? files.read(directory + "/" + name, maxBytes: maxListBytes, trust: .document).bytes else {
                continue
            }
            versions += ChannelDocuments.aptVersions(bytes, package: package, architecture: architecture)
        }
        return versions
    }
}
