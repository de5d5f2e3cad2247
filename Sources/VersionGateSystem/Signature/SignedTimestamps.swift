import VersionGateCore

/// The newest trusted-comment timestamp seen per local signed document,
/// under `$XDG_STATE_HOME/versiongate/`, so a launcher refuses an older
/// signed copy put back in place (rollback) across restarts too.
package struct SignedTimestamps: Sendable {
    package let directory: PrivateDirectory?

    package init(_ directory: PrivateDirectory?) { self.directory = directory }

    package static func fileName(forPath path: String) -> String { "signed-\(fnv1a64Hex("file:" + path))" }

    package func newest(for path: String) -> Int64? {
        directory?.read(Self.fileName(forPath: path), maxBytes: 32)
            .flatMap { Int64(decimal: String(decoding: $0, as: UTF8.self)) }
    }

    /// Remembers `timestamp` when newer than what is stored.
    package func record(_ timestamp: Int64, for path: String) {
        guard let directory, timestamp > (newest(for: path) ?? Int64.min) else { return }
        directory.write(Self.fileName(forPath: path), Array(String(timestamp).utf8))
    }
}
