import VersionGateCore

/// The sandbox the process runs in, if any (docs/design.md, "Where to update"). Inside Flatpak and
/// Snap, `xdg-open` goes through the desktop portal, which accepts any URI
/// (exit 0) and shows its own dialog for a scheme no app handles: the
/// web-page retry never fires there, so the store's https page goes first.
package enum Sandbox: String, Sendable {
    case flatpak, snap

    /// What bubblewrap puts in every Flatpak sandbox, and nothing else does.
    package static let flatpakInfo = "/.flatpak-info"

    /// Flatpak: `FLATPAK_ID` set or `/.flatpak-info` present; Snap: `SNAP` set.
    /// Read through the check's System when a store URL is resolved (not
    /// cached: a resolution is, by StoreLocator).
    package static func detect(_ environment: CheckEnvironment, files: any FileSystem,
                               flatpakInfo: String = Sandbox.flatpakInfo) -> Sandbox? {
        if environment.value("FLATPAK_ID").map({ !$0.isEmpty }) == true || files.identity(of: flatpakInfo) != nil {
            return .flatpak
        }
        if environment.value("SNAP").map({ !$0.isEmpty }) == true { return .snap }
        return nil
    }
}
