import VersionGateCore
import Synchronization

/// The login is the session: a marker file per key under
/// `$XDG_RUNTIME_DIR/versiongate/`, which every launcher process of the
/// login shares and the system empties at logout. Creating the marker with
/// O_EXCL makes exactly one process the first. When the directory cannot be
/// used, the process is the session.
package struct LoginSession: PromptMemory {
    package let runtimeDirectory: String
    package let files: any FileSystem
    private static let fallback = ProcessSession.shared
    /// Keys this process already decided, so repeated checks skip the file system.
    private static let decided = Mutex<Set<String>>([])

    /// nil when `runtimeDirectory` is unset or not absolute (XDG: ignore it).
    package init?(runtimeDirectory: String?, files: any FileSystem) {
        guard let dir = runtimeDirectory, dir.hasPrefix("/") else { return nil }
        self.runtimeDirectory = dir
        self.files = files
    }

    package func claim(_ key: String) -> Bool {
        let marker = "\(runtimeDirectory)/versiongate/optional-\(fnv1a64Hex(key))"
        if !Self.decided.withLock({ $0.insert(marker).inserted }) { return false }

        switch files.createExclusively(marker) {
        case .created: return true
        case .alreadyThere: return false
        case .failed: return Self.fallback.claim(key)
        }
    }
}
