import VersionGateCore
import SystemShim
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The login is the session: a marker file per key under
/// `$XDG_RUNTIME_DIR/versiongate/`, which every launcher process of the
/// login shares and the system empties at logout. Creating the marker with
/// O_EXCL makes exactly one process the first. When the directory cannot be
/// used, the process is the session.
package struct LoginSession: PromptMemory {
    package let runtimeDirectory: String
    private static let fallback = ProcessSession.shared
    /// Keys this process already decided, so repeated checks skip the file system.
    private static let decided = Mutex<Set<String>>([])

    /// nil when `runtimeDirectory` is unset or not absolute (XDG: ignore it).
    package init?(runtimeDirectory: String?) {
        guard let dir = runtimeDirectory, dir.hasPrefix("/") else { return nil }
        self.runtimeDirectory = dir
    }

    package func claim(_ key: String) -> Bool {
        let marker = "\(runtimeDirectory)/versiongate/optional-\(fnv1a64Hex(key))"
        if !Self.decided.withLock({ $0.insert(marker).inserted }) { return false }

        let dir = "\(runtimeDirectory)/versiongate"
        if mkdir(dir, 0o700) != 0 && systemErrno != EEXIST { return Self.fallback.claim(key) }
        let fd = vg_system_open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return true
        }
        return systemErrno == EEXIST ? false : Self.fallback.claim(key)
    }
}
