import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// The login is the session: a marker file per key under
/// `$XDG_RUNTIME_DIR/versiongate/`, which every launcher process of the
/// login shares and the system empties at logout. Creating the marker with
/// O_EXCL makes exactly one process the first.
///
/// Only a runtime directory that is the user's own with mode 0700 (the XDG
/// rule) and a `versiongate/` in it that is the user's, not a symlink, and
/// writable by no one else are used: elsewhere another user could read
/// which apps run, or plant markers that silence every OPTIONAL prompt.
/// Otherwise the process is the session, and the result's note says why.
package struct LoginSession: PromptMemory {
    package let runtimeDirectory: String
    package let files: any FileSystem
    private static let fallback = ProcessSession.shared
    /// Markers this process already decided (with the note that came with
    /// the decision), so repeated checks skip the file system.
    private static let decided = Mutex<[String: String?]>([:])

    /// nil when `runtimeDirectory` is unset or not absolute (XDG: ignore it).
    package init?(runtimeDirectory: String?, files: any FileSystem) {
        guard let dir = runtimeDirectory, dir.hasPrefix("/") else { return nil }
        self.runtimeDirectory = dir
        self.files = files
    }

    package func claim(_ key: String, record: Bool) -> PromptClaim {
        let marker = "\(runtimeDirectory)/versiongate/optional-\(fnv1a64Hex(key))"
        if let note = Self.decided.withLock({ $0[marker] }) { return PromptClaim(shouldPrompt: false, note: note) }

        let claim: PromptClaim
        if let problem = files.privateBaseProblem(runtimeDirectory) {
            claim = fallback(key, "XDG_RUNTIME_DIR \(problem)", record: record)
        } else if !record {
            return PromptClaim(shouldPrompt: files.identity(of: marker) == nil, note: "dry run: no marker written")
        } else {
            switch files.createExclusively(marker) {
            case .created: claim = PromptClaim(shouldPrompt: true)
            case .alreadyThere: claim = PromptClaim(shouldPrompt: false)
            case .failed(let why): claim = fallback(key, why, record: record)
            }
        }
        if record { Self.decided.withLock { $0[marker] = .some(claim.note) } }
        return claim
    }

    private func fallback(_ key: String, _ why: String, record: Bool) -> PromptClaim {
        PromptClaim(shouldPrompt: Self.fallback.claim(key, record: record).shouldPrompt,
                    note: OneLine.text(why, max: 300) + "; OPTIONAL prompts once per process")
    }
}
