/// The two primitives a minisign check needs, from a real crypto library
/// (the system layer's libcrypto); the core never computes them itself.
package protocol SignatureCrypto: Sendable {
    /// BLAKE2b with a 64-byte output.
    func blake2b512(_ bytes: [UInt8]) throws(GateFailure) -> [UInt8]
    /// Whether `signature` is `key`'s Ed25519 signature of `message`.
    func verifyEd25519(key: [UInt8], message: [UInt8], signature: [UInt8]) throws(GateFailure) -> Bool
}
