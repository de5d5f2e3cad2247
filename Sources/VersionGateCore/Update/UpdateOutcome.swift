/// How an update in place ended (docs/design.md, "Updating in place"): the
/// header's vg_update_outcome, whose numbers these are, and the names the
/// events, the helper and Python use. Append-only: scripts/generate writes
/// the cases and names from declarations/update_outcomes.decl.
package enum UpdateOutcome: Int32, Sendable, CaseIterable {
    // BEGIN GENERATED update_outcomes (scripts/generate)
    /// The new version is installed: vg_client_restart starts it.
    case installed = 0
    /// Neither inside a Flatpak (no /.flatpak-info) nor an
    /// AppImage ($APPIMAGE unset) nor a snap nor from a known
    /// distribution package, or an install nothing here may update
    /// (Nix, rpm-ostree, Homebrew: the message says what does):
    /// open the store.
    case notFlatpak = 1
    /// No way to the portal: no helper, no GIO, no session bus,
    /// no org.freedesktop.portal.Flatpak, or one older than 2;
    /// an AppImage without update information, or in a
    /// directory this user cannot write; no system bus, no
    /// PackageKit, or the package is not installed; no snapd, or
    /// the snap is not installed.
    case unavailable = 2
    /// The user or the permission store said no (AccessDenied);
    /// polkit did not authorize PackageKit (not-authorized) or
    /// snapd (login-required), or its password dialog was cancelled.
    case refused = 3
    /// The new version asks for more sandbox permissions than
    /// this one has; the portal refuses those (NotSupported).
    case needsPermissions = 4
    /// The portal or flatpak failed (its message says how).
    case failed = 5
    /// The progress callback returned nonzero: the call returned
    /// at once; the portal may still finish installing.
    case cancelled = 6
    /// The app's Flatpak remote, PackageKit after refreshing
    /// its lists, or snapd in the snap's channel has nothing newer
    /// installed or to install.
    case nothingNew = 7
    /// Since 1.3: the new file did not match its control file's
    /// checksums or its signature; nothing was replaced; or the
    /// package's update is not from a trusted repository.
    case verifyFailed = 8
    /// Since 1.4: inside a strictly confined snap, which cannot
    /// refresh itself: snapd installs the update once the app has
    /// exited; open the store and quit without starting the app.
    case afterExit = 9
    // END GENERATED update_outcomes

    package var name: String {
        switch self {
        // BEGIN GENERATED update_outcome_names (scripts/generate)
        case .installed: "installed"
        case .notFlatpak: "not_flatpak"
        case .unavailable: "unavailable"
        case .refused: "refused"
        case .needsPermissions: "needs_permissions"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .nothingNew: "nothing_new"
        case .verifyFailed: "verify_failed"
        case .afterExit: "after_exit"
        // END GENERATED update_outcome_names
        }
    }

    package init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
