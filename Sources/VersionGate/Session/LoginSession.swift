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
struct LoginSession: SessionStore {
    let runtimeDirectory: String
    private static let fallback = ProcessSession.shared
    /// Keys this process already decided, so repeated checks skip the file system.
    private static let decided = Mutex<Set<String>>([])

    /// nil when `runtimeDirectory` is unset or not absolute (XDG: ignore it).
    init?(runtimeDirectory: String?) {
        guard let dir = runtimeDirectory, dir.hasPrefix("/") else { return nil }
        self.runtimeDirectory = dir
    }

    func claim(_ key: String) -> Bool {
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

/// FNV-1a: a stable, short file name for a key of any length.
func fnv1a64Hex(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
