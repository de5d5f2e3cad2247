import VersionGateCore
import Synchronization

/// A gate document on local disk. The parsed snapshot is reused while the
/// file's identity (device, inode, size, mtime, ctime) is unchanged, so a
/// warm check costs one stat(2) (two with `trusted_keys`: the signature's).
package final class LocalDocumentSource: ConfigSource {
    package let path: String
    package let platform: String
    /// nil: the document is trusted as it is; else only with a valid `<path>.minisig`.
    package let trust: DocumentTrust?
    private let cache = Mutex<Entry?>(nil)

    private struct Entry {
        package let identity: FileIdentity
        /// The signature file's, when one was verified.
        package let signatureIdentity: FileIdentity?
        package let snapshot: GateSnapshot
        /// Said with every result from it (a signature without a timestamp).
        package let note: String?
        /// Whether the file may still change without its identity changing
        /// (git's "racily clean" rule): then it is read again next time.
        package let racy: Bool
    }

    package init(path: String, platform: String, trust: DocumentTrust? = nil) {
        self.path = path
        self.platform = platform
        self.trust = trust
    }

    package var name: String { path }

    private var signaturePath: String { SignatureCheck.signatureLocation(of: path) }

    package func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure> {
        let files = request.files
        let signatureIdentity = trust == nil ? nil : files.identity(of: signaturePath)
        if let identity = files.identity(of: path),
           let hit = cache.withLock({ entry in
               entry?.identity == identity && entry?.signatureIdentity == signatureIdentity && entry?.racy == false
                   ? entry : nil
           }) {
            return .success(LoadedConfig(snapshot: hit.snapshot, origin: .localDocument, note: hit.note))
        }
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
            cache.withLock {
                $0 = Entry(identity: identity, signatureIdentity: verified?.identity, snapshot: snapshot, note: note,
                           racy: racy)
            }
            return .success(LoadedConfig(snapshot: snapshot, origin: .localDocument, note: note))
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
