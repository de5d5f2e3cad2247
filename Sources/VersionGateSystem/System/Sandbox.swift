import VersionGateCore
import VersionGatePlatform

/// Where this process runs (docs/design.md, "Where to update"): in a
/// Flatpak, a Snap or an AppImage, or none. The one answer the store (https
/// pages first in a sandbox), the channel (a snap's name, a Flatpak's own
/// remote) and the update in place (portal, zsync, PackageKit) all read;
/// a `System` carries it, detected from its environment and files.
package struct Sandbox: Sendable, Equatable {
    /// Inside Flatpak and Snap, `xdg-open` goes through the desktop portal,
    /// which accepts any URI (exit 0) and shows its own dialog for a scheme
    /// no app handles: the web-page retry never fires there, so the store's
    /// https page goes first.
    package enum Kind: String, Sendable {
        case flatpak, snap
    }

    /// Flatpak: `FLATPAK_ID` set or `/.flatpak-info` present; Snap: `SNAP` set.
    package var kind: Kind?
    /// `/.flatpak-info` itself, the file the portal reads to know the app:
    /// only then can the portal update it (`FLATPAK_ID` alone is a hint).
    package var isFlatpakApp: Bool
    /// The store's name of this snap: `SNAP_INSTANCE_NAME` (else
    /// `SNAP_NAME`) without a parallel install's `_key`.
    package var snapName: String?
    /// Inside a snap whose `meta/snap.yaml` says `confinement: classic`:
    /// it may ask snapd itself; a strict one may not.
    package var isClassicSnap: Bool
    /// The AppImage this process runs from: `$APPIMAGE`, an absolute path
    /// as the AppImage runtime sets it.
    package var appImage: String?

    package init(kind: Kind? = nil, isFlatpakApp: Bool = false, snapName: String? = nil, isClassicSnap: Bool = false,
                 appImage: String? = nil) {
        (self.kind, self.isFlatpakApp, self.snapName, self.appImage) = (kind, isFlatpakApp, snapName, appImage)
        self.isClassicSnap = isClassicSnap
    }

    /// What bubblewrap puts in every Flatpak sandbox, and nothing else does.
    package static let flatpakInfo = "/.flatpak-info"

    package static func detect(_ environment: CheckEnvironment, files: any FileSystem,
                               flatpakInfo: String = Sandbox.flatpakInfo) -> Sandbox {
        func nonEmpty(_ name: String) -> String? { environment.value(name).flatMap { $0.isEmpty ? nil : $0 } }
        var sandbox = Sandbox()
        sandbox.isFlatpakApp = files.identity(of: flatpakInfo) != nil
        if sandbox.isFlatpakApp || nonEmpty("FLATPAK_ID") != nil {
            sandbox.kind = .flatpak
        } else if let snap = nonEmpty("SNAP") {
            sandbox.kind = .snap
            sandbox.isClassicSnap = isClassic(snapYAML: snap + "/meta/snap.yaml", files: files)
        }
        sandbox.snapName = (nonEmpty("SNAP_INSTANCE_NAME") ?? nonEmpty("SNAP_NAME")).map { String($0.prefix { $0 != "_" }) }
        sandbox.appImage = nonEmpty("APPIMAGE").flatMap { $0.hasPrefix("/") ? $0 : nil }
        return sandbox
    }

    /// Whether a snap's metadata says `confinement: classic` (a top-level
    /// key, its own line); anything unreadable is strict, the safe side.
    private static func isClassic(snapYAML path: String, files: any FileSystem) -> Bool {
        guard let bytes = try? files.read(path, maxBytes: 1 << 20, trust: .document).bytes else { return false }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("confinement:") {
            let value = ASCII.trimmingBlanks(line.dropFirst("confinement:".count).prefix { $0 != "#" && $0 != "\r" })
            return value == "classic" || value == "\"classic\"" || value == "'classic'"
        }
        return false
    }

    /// This process's, as its environment says now.
    package static var current: Sandbox { detect(.current(), files: POSIXFiles()) }
}
