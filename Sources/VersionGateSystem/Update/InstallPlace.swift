import VersionGateWire
#if canImport(Glibc)
import Glibc
#endif

/// Installs that nothing here may update, and the one remedy that works
/// in each (docs/design.md, "Updating a snap"): Update writes nothing and
/// asks no updater there, and says this beside the store link.
package enum InstallPlace {
    /// An image-based system (rpm-ostree, Silverblue): packages are layered
    /// into the next deployment, and PackageKit does not run. Read once a process.
    package static let isOstreeBooted = access(MachinePaths.ostreeBooted, F_OK) == 0

    package static func isNixStore(_ path: String) -> Bool { path.hasPrefix("/nix/store/") }

    /// The cask whose Caskroom holds `path` (`…/Caskroom/NAME/VERSION/…`).
    package static func homebrewCask(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        guard let index = parts.firstIndex(of: "Caskroom"), index + 1 < parts.count else { return nil }
        return String(parts[index + 1])
    }

    static let nixRemedy = "the app is in the Nix store, which only Nix changes: update it through your Nix configuration"
    static let ostreeRemedy = "this is an rpm-ostree system, where packages change with the deployment: "
        + "rpm-ostree upgrade, then restart"

    static func homebrewRemedy(_ cask: String) -> String {
        "the AppImage is kept by Homebrew, which would undo a change made here: brew upgrade --cask \(cask)"
    }

    static func strictSnapRemedy(_ name: String) -> String {
        "inside the \(name) snap's strict confinement it cannot refresh itself: snapd installs the update "
            + "once the app is closed"
    }
}

extension HelperRequest.Update.Kind {
    /// Installed at the same path as before: a restart starts the program again.
    var restartsByPath: Bool {
        switch self {
        case .package, .snap: true
        case .flatpak, .appImage: false
        }
    }
}
