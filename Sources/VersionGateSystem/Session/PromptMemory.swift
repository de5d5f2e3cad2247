import VersionGateCore
import Synchronization

/// Remembers which OPTIONAL prompts were already shown this session
/// (SPEC §9). `claim` answers true exactly once per key and session.
package protocol PromptMemory: Sendable {
    func claim(_ key: String) -> Bool
}

/// The process is the session: an in-memory set shared by every client.
package final class ProcessSession: PromptMemory {
    package static let shared = ProcessSession()
    private let shown = Mutex<Set<String>>([])

    package func claim(_ key: String) -> Bool {
        shown.withLock { $0.insert(key).inserted }
    }
}
