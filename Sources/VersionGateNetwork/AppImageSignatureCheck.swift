import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

extension AppImageUpdate {
    /// With trusted_keys, the new file must carry a minisign signature by one
    /// of them (`<file URL>.minisig`), as documents do. A prehashed signature
    /// (minisign's default) is checked against the file's BLAKE2b-512, read
    /// a piece at a time; only a legacy one needs the file whole.
    static func verifySignature(_ file: String, length: UInt64, fileURL: String, trust: DocumentTrust,
                                transport: any HTTPTransport, limits: TransportLimits) -> Result<Void, Refusal> {
        let signatureURL = SignatureCheck.signatureLocation(of: fileURL)
        var signatureLimits = limits
        signatureLimits.maxBodyBytes = 4096
        let signature: HTTPResponse
        do throws(TransportError) {
            signature = try transport.send(HTTPRequest(url: signatureURL), limits: signatureLimits)
        } catch {
            return .failure(Refusal(.verifyFailed, "signature missing: \(error.message)"))
        }
        guard signature.status == 200 else {
            return .failure(Refusal(.verifyFailed, "signature missing: \(signatureURL): HTTP \(signature.status)"))
        }
        let fd = vg_system_open(file, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return .failure(Refusal(.failed, "cannot read back \(file) to check its signature")) }
        defer { close(fd) }
        let verified = trust.verify(signatureFile: signature.body, document: fileURL, signatureName: signatureURL) {
            algorithm throws(GateFailure) in
            if algorithm == .prehashed { return try LibcryptoSignatureCrypto().blake2b512(of: fd, length: length) }
            guard length <= UInt64(Int.max), let bytes = readAt(fd, 0, Int(length)) else {
                throw GateFailure(.signature, "cannot read back \(file)")
            }
            return bytes
        }
        if case .failure(let failure) = verified { return .failure(Refusal(.verifyFailed, failure.message)) }
        return .success(())
    }
}
