import VersionGateCore
import Synchronization

/// A gate document on local disk. The parsed snapshot is reused while the
/// file's identity (device, inode, size, mtime, ctime) is unchanged, so a
/// warm check costs one stat(2).
package final class LocalDocumentSource: ConfigSource {
    package let path: String
    package let platform: String
    private let cache = Mutex<Entry?>(nil)

    private struct Entry {
        package let identity: FileIdentity
        package let snapshot: GateSnapshot
        /// Whether the file may still change without its identity changing
        /// (git's "racily clean" rule): then it is read again next time.
        package let racy: Bool
    }

    package init(path: String, platform: String) {
        self.path = path
        self.platform = platform
    }

    package var name: String { path }

    package func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure> {
        load(files: request.files)
    }

    package func load(files: any FileSystem) -> Result<LoadedConfig, GateFailure> {
        if let identity = files.identity(of: path),
           let hit = cache.withLock({ $0?.identity == identity && $0?.racy == false ? $0?.snapshot : nil }) {
            return .success(LoadedConfig(snapshot: hit, origin: .localDocument))
        }
        do throws(GateFailure) {
            let (bytes, identity) = try files.read(path, maxBytes: GateDocument.maxBytes, trust: .document)
            let config: GateConfig
            do {
                config = try GateDocument.parse(bytes)
            } catch {
                throw .config("\(path) \(error.message)")
            }
            let snapshot = GateSnapshot(config: config, platform: platform, documentName: path)
            cache.withLock { $0 = Entry(identity: identity, snapshot: snapshot, racy: files.isRecentlyChanged(identity)) }
            return .success(LoadedConfig(snapshot: snapshot, origin: .localDocument))
        } catch {
            cache.withLock { $0 = nil }
            return .failure(error)
        }
    }
}
