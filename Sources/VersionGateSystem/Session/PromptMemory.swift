import VersionGateCore
import Synchronization

/// Remembers which OPTIONAL prompts were already shown this session
/// (docs/design.md, "Sessions, skip and remind"). `claim` says to prompt exactly once per key and session;
/// with `record` false it only says whether it would (dry_run: nothing
/// is kept, so the next real check still prompts).
package protocol PromptMemory: Sendable {
    func claim(_ key: String, record: Bool) -> PromptClaim
}

package struct PromptClaim: Sendable, Equatable {
    package var shouldPrompt: Bool
    /// Why the session is narrower than asked (e.g. the process instead of
    /// the login), for the result's note.
    package var note: String?

    package init(shouldPrompt: Bool, note: String? = nil) {
        self.shouldPrompt = shouldPrompt
        self.note = note
    }
}

/// The process is the session: an in-memory set shared by every client.
package final class ProcessSession: PromptMemory {
    package static let shared = ProcessSession()
    private let shown = Mutex<Set<String>>([])

    package func claim(_ key: String, record: Bool) -> PromptClaim {
        PromptClaim(shouldPrompt: shown.withLock { record ? $0.insert(key).inserted : !$0.contains(key) })
    }
}
