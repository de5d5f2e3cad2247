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
    /// The AppImage this process runs from: `$APPIMAGE`, an absolute path
    /// as the AppImage runtime sets it.
    package var appImage: String?

    package init(kind: Kind? = nil, isFlatpakApp: Bool = false, snapName: String? = nil, appImage: String? = nil) {
        (self.kind, self.isFlatpakApp, self.snapName, self.appImage) = (kind, isFlatpakApp, snapName, appImage)
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
        } else if nonEmpty("SNAP") != nil {
            sandbox.kind = .snap
        }
        sandbox.snapName = (nonEmpty("SNAP_INSTANCE_NAME") ?? nonEmpty("SNAP_NAME")).map { String($0.prefix { $0 != "_" }) }
        sandbox.appImage = nonEmpty("APPIMAGE").flatMap { $0.hasPrefix("/") ? $0 : nil }
        return sandbox
    }

    /// This process's, as its environment says now.
    package static var current: Sandbox { detect(.current(), files: POSIXFiles()) }
}
