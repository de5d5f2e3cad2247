import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// A gate document on local disk. The parsed snapshot is reused while the
/// file's identity (device, inode, size, mtime, ctime) is unchanged, so a
/// warm check costs one stat(2) (two with `trusted_keys`: the signature's).
package final class LocalDocumentSource: ConfigSource {
    package let path: String
    package let platform: String
    /// nil: the document is trusted as it is; else only with a valid `<path>.minisig`.
    package let trust: DocumentTrust?
    private let signaturePath: String
    /// trust != nil, without copying the trust at each check.
    private let signed: Bool
    private let cache = Mutex<Entry?>(nil)

    /// A class, so a check takes it out of the lock with one retain.
    private final class Entry: Sendable {
        let identity: FileIdentity
        /// The signature file's, when one was verified.
        let signatureIdentity: FileIdentity?
        /// The snapshot, and the note said with every result from it (a
        /// signature without a timestamp).
        let config: LoadedConfig
        /// Whether the file may still change without its identity changing
        /// (git's "racily clean" rule): then it is read again next time.
        let racy: Bool

        init(identity: FileIdentity, signatureIdentity: FileIdentity?, config: LoadedConfig, racy: Bool) {
            (self.identity, self.signatureIdentity, self.config, self.racy) = (identity, signatureIdentity, config, racy)
        }
    }

    package init(path: String, platform: String, trust: DocumentTrust? = nil) {
        self.path = path
        self.platform = platform
        self.trust = trust
        signed = trust != nil
        signaturePath = SignatureCheck.signatureLocation(of: path)
    }

    package var name: String { path }

    package func current(files: any FileSystem) -> LoadedConfig? {
        cached(files, signatureIdentity: signed ? files.identity(of: signaturePath) : nil)
    }

    /// The cached config while the file (and signature) are unchanged and not racy.
    private func cached(_ files: any FileSystem, signatureIdentity: FileIdentity?) -> LoadedConfig? {
        guard let identity = files.identity(of: path) else { return nil }
        // Compared under the lock: only the config is retained, not the entry too.
        return cache.withLock { entry in
            guard let entry, !entry.racy, entry.identity == identity else { return nil }
            switch (entry.signatureIdentity, signatureIdentity) {
            case (nil, nil): return entry.config
            case (let kept?, let now?) where kept == now: return entry.config
            default: return nil
            }
        }
    }

    package func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure> {
        let files = request.files
        let signatureIdentity = signed ? files.identity(of: signaturePath) : nil
        if let hit = cached(files, signatureIdentity: signatureIdentity) { return .success(hit) }
        do throws(GateFailure) {
            let (bytes, identity) = try files.read(path, maxBytes: GateDocument.maxBytes, trust: .document)
            var verified: (signature: DocumentSignature, identity: FileIdentity)?
            if let trust { verified = try verify(bytes, trust, signatureIdentity != nil, request) }
            var config: GateConfig
            do {
                config = try GateDocument.parse(bytes)
            } catch {
                throw .config("\(path) \(error.message)")
            }
            config.signature = verified?.signature
            let snapshot = GateSnapshot(config: config, platform: platform, documentName: path)
            let racy = files.isRecentlyChanged(identity) || verified.map { files.isRecentlyChanged($0.identity) } == true
            let note = SignatureCheck.replayNote(verified?.signature, signatureName: signaturePath)
            if let note { request.log?.add(.warning, note) }
            let loaded = LoadedConfig(snapshot: snapshot, origin: .localDocument, note: note)
            cache.withLock {
                $0 = Entry(identity: identity, signatureIdentity: verified?.identity, config: loaded, racy: racy)
            }
            return .success(loaded)
        } catch {
            cache.withLock { $0 = nil }
            return .failure(error)
        }
    }

    /// The document's signature, verified and not older than the newest
    /// one seen for this path (persisted, so a restart does not forget it).
    private func verify(_ bytes: [UInt8], _ trust: DocumentTrust, _ signatureExists: Bool, _ request: LoadRequest)
        throws(GateFailure) -> (signature: DocumentSignature, identity: FileIdentity) {
        guard signatureExists else { throw SignatureCheck.missing(document: path, signatureName: signaturePath) }
        let signatureFile: (bytes: [UInt8], identity: FileIdentity)
        do {
            signatureFile = try request.files.read(signaturePath, maxBytes: MinisignSignature.maxFileBytes,
                                                   trust: .document)
        } catch {
            throw GateFailure(.signature, "signature unreadable: \(error.message); \(path) is not trusted")
        }
        let signature = try trust.verify(bytes, signatureFile: signatureFile.bytes, document: path,
                                         signatureName: signaturePath).get()
        let seen = SignedTimestamps(PrivateDirectory(base: request.environment.stateHome, files: request.files))
        try seen.admit(signature, for: "file:" + path, document: path).get()
        return (signature, signatureFile.identity)
    }
}
