import VersionGateCore

/// The `trusted_keys` option at work: a signature check and the crypto
/// that performs it, shared by every document source of one client.
package struct DocumentTrust: Sendable {
    package let check: SignatureCheck
    package let crypto: any SignatureCrypto

    package init(keys: [MinisignPublicKey], crypto: any SignatureCrypto = LibcryptoSignatureCrypto()) {
        check = SignatureCheck(keys: keys)
        self.crypto = crypto
    }

    /// nil when no keys are set: documents are trusted as they are.
    package init?(_ options: ClientOptions) {
        guard !options.trustedKeys.isEmpty else { return nil }
        self.init(keys: options.trustedKeys)
    }

    package func verify(_ bytes: [UInt8], signatureFile: [UInt8], document: String, signatureName: String)
        -> Result<DocumentSignature, GateFailure> {
        check.verify(bytes, signatureFile: signatureFile, document: document, signatureName: signatureName,
                     crypto: crypto)
    }

    /// The same for content too large to hold (SignatureCheck's second verify).
    package func verify(signatureFile: [UInt8], document: String, signatureName: String,
                        message: (MinisignSignature.Algorithm) throws(GateFailure) -> [UInt8])
        -> Result<DocumentSignature, GateFailure> {
        check.verify(signatureFile: signatureFile, document: document, signatureName: signatureName, crypto: crypto,
                     message: message)
    }

    /// Whether a config verified earlier (a cache entry) is still vouched
    /// for by a key trusted now: one dropped from `trusted_keys` no longer is.
    package func stillTrusts(_ config: GateConfig) -> Bool {
        guard let signature = config.signature else { return false }
        return check.keys.contains { $0.keyID == signature.keyID }
    }
}
