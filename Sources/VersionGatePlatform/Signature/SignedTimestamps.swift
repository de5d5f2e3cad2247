import VersionGateCore
import VersionGateWire

/// The newest trusted-comment timestamp seen per signed document (a local
/// path, or a remote source's cache key), under `$XDG_STATE_HOME/versiongate/`,
/// so a launcher refuses an older signed copy put back in place (rollback)
/// across restarts, and whatever else rewrote the cache meanwhile (a client
/// of the same URL without keys).
package struct SignedTimestamps: Sendable {
    package let directory: PrivateDirectory?

    package init(_ directory: PrivateDirectory?) { self.directory = directory }

    /// `key`: "file:" + a path, or a remote source's cache key ("document:" + URL).
    package static func fileName(forKey key: String) -> String { "signed-\(fnv1a64Hex(key))" }

    package func newest(for key: String) -> Int64? {
        directory?.read(Self.fileName(forKey: key), maxBytes: 32)
            .flatMap { Int64(decimal: String(decoding: $0, as: UTF8.self)) }
    }

    /// The rollback step of a source: `signature` checked against the newest
    /// stored for `key` and any the source knows itself (`alsoSeen`: a
    /// cached copy's), and remembered when admitted.
    package func admit(_ signature: DocumentSignature, for key: String, alsoSeen: Int64? = nil, document: String)
        -> Result<Void, GateFailure> {
        RollbackRule.admit(signature, seen: [newest(for: key), alsoSeen], document: document).map { timestamp in
            if let timestamp { record(timestamp, for: key) }
        }
    }

    /// Remembers `timestamp` when newer than what is stored.
    package func record(_ timestamp: Int64, for key: String) {
        guard let directory, timestamp > (newest(for: key) ?? Int64.min) else { return }
        directory.write(Self.fileName(forKey: key), Array(String(timestamp).utf8))
    }
}
