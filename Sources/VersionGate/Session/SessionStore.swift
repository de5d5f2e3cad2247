import Synchronization

/// Remembers which OPTIONAL prompts were already shown this session
/// (SPEC §9). `claim` answers true exactly once per key and session.
protocol SessionStore: Sendable {
    func claim(_ key: String) -> Bool
}

/// The process is the session: an in-memory set shared by every client.
final class ProcessSession: SessionStore {
    static let shared = ProcessSession()
    private let shown = Mutex<Set<String>>([])

    func claim(_ key: String) -> Bool {
        shown.withLock { $0.insert(key).inserted }
    }
}
