/// How an update in place ended (docs/design.md, "Updating in place"): the
/// header's vg_update_outcome, whose numbers these are, and the names the
/// events, the helper and Python use. Append-only.
package enum UpdateOutcome: Int32, Sendable, CaseIterable {
    /// The new version is installed; a restart starts it.
    case installed = 0
    /// Neither inside a Flatpak nor an AppImage: the store is the way.
    case notFlatpak = 1
    /// Inside a Flatpak, but no way to the portal: no helper, no GIO, no
    /// session bus, no portal on it, or one older than version 2.
    case unavailable = 2
    /// The user or the permission store said no (AccessDenied).
    case refused = 3
    /// The new version asks for more sandbox permissions (NotSupported).
    case needsPermissions = 4
    /// The portal or flatpak failed; the message says how.
    case failed = 5
    /// The host's progress callback asked to stop.
    case cancelled = 6
    /// The app's remote has nothing newer than what is installed.
    case nothingNew = 7
    /// The new file did not match its control file's checksums or its
    /// signature (an AppImage): nothing was replaced.
    case verifyFailed = 8

    package var name: String {
        switch self {
        case .installed: "installed"
        case .notFlatpak: "not_flatpak"
        case .unavailable: "unavailable"
        case .refused: "refused"
        case .needsPermissions: "needs_permissions"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .nothingNew: "nothing_new"
        case .verifyFailed: "verify_failed"
        }
    }

    package init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
