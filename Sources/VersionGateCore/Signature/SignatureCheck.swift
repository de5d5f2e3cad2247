/// Whether a document is trusted under the `trusted_keys` option: its
/// detached minisign signature parses, names a trusted key, matches the
/// document, and its trusted comment matches the global signature. Each
/// refusal is a `.signature` failure saying which case it was.
package struct SignatureCheck: Sendable {
    package let keys: [MinisignPublicKey]

    package init(keys: [MinisignPublicKey]) { self.keys = keys }

    /// What to tell the operator about a trusted signature without a
    /// timestamp: it verifies, but an older signed document put back in its
    /// place cannot be told from it (docs/design.md, "The trust model").
    package static func replayNote(_ signature: DocumentSignature?, signatureName: String) -> String? {
        guard let signature, signature.timestamp == nil else { return nil }
        return "\(signatureName): the trusted comment has no timestamp: replays of older signed documents "
            + "cannot be refused (keep minisign's default comment, or put timestamp:<unix seconds> in it)"
    }

    /// The refusal of a document that has no signature beside it.
    package static func missing(document: String, signatureName: String) -> GateFailure {
        GateFailure(.signature, "signature missing: no \(signatureName); \(document) is not trusted")
    }

    /// `document` and `signatureName` name the two for messages (a path or a URL).
    package func verify(_ bytes: [UInt8], signatureFile: [UInt8], document: String, signatureName: String,
                        crypto: any SignatureCrypto) -> Result<DocumentSignature, GateFailure> {
        verify(signatureFile: signatureFile, document: document, signatureName: signatureName, crypto: crypto) {
            algorithm throws(GateFailure) in algorithm == .prehashed ? try crypto.blake2b512(bytes) : bytes
        }
    }

    /// The same for content too large to hold (an AppImage): `message` gives
    /// what the signature's algorithm signs, the content's BLAKE2b-512 for a
    /// prehashed one (minisign's default), else the content itself.
    package func verify(signatureFile: [UInt8], document: String, signatureName: String, crypto: any SignatureCrypto,
                        message: (MinisignSignature.Algorithm) throws(GateFailure) -> [UInt8])
        -> Result<DocumentSignature, GateFailure> {
        let untrusted = "; \(document) is not trusted"
        let signature: MinisignSignature
        switch MinisignSignature.parse(signatureFile) {
        case .success(let parsed): signature = parsed
        case .failure(let defect):
            return .failure(GateFailure(.signature, "signature truncated or malformed: \(signatureName): "
                                        + "\(defect.reason)\(untrusted)"))
        }
        let candidates = keys.filter { $0.keyID == signature.keyID }
        guard !candidates.isEmpty else {
            let trusted = keys.map(\.keyIDText).joined(separator: ", ")
            return .failure(GateFailure(.signature, "signature by unknown key id "
                                        + "\(MinisignPublicKey.keyIDText(signature.keyID)) (trusted: \(trusted)) "
                                        + "in \(signatureName)\(untrusted)"))
        }
        do throws(GateFailure) {
            let signed = try message(signature.algorithm)
            for key in candidates where try crypto.verifyEd25519(key: key.key, message: signed,
                                                                 signature: signature.signature) {
                guard try crypto.verifyEd25519(key: key.key, message: signature.globallySigned,
                                               signature: signature.globalSignature) else {
                    return .failure(GateFailure(.signature, "trusted comment does not match its signature "
                                                + "in \(signatureName)\(untrusted)"))
                }
                return .success(DocumentSignature(keyID: signature.keyID, timestamp: signature.timestamp))
            }
            return .failure(GateFailure(.signature, "document does not match its signature "
                                        + "\(signatureName)\(untrusted)"))
        } catch {
            return .failure(GateFailure(.signature, "cannot verify \(signatureName): \(error.message)\(untrusted)"))
        }
    }

    /// Where a document's detached signature is: `<path>.minisig`, and for
    /// a URL the path's end (before any query or fragment).
    package static func signatureLocation(of document: String) -> String {
        let utf8 = Array(document.utf8)
        let isURL = document.hasPrefix("https://") || document.hasPrefix("http://")
        guard isURL, let end = utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return document + ".minisig"
        }
        return String(decoding: utf8[..<end], as: UTF8.self) + ".minisig" + String(decoding: utf8[end...], as: UTF8.self)
    }
}
