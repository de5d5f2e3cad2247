import CryptoShim
import VersionGateCore

/// Ed25519 and BLAKE2b-512 from the system's libcrypto (OpenSSL 3, else 1.1.1), loaded
/// on first use through CryptoShim: a client without `trusted_keys` never
/// loads it. When it cannot be loaded, nothing verifies and the document is
/// not trusted (the check fails open).
package struct LibcryptoSignatureCrypto: SignatureCrypto {
    package init() {}

    package func blake2b512(_ bytes: [UInt8]) throws(GateFailure) -> [UInt8] {
        try Self.load()
        var out = [UInt8](repeating: 0, count: 64)
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { vgc_blake2b512(input.baseAddress, input.count, $0.baseAddress) }
        }
        guard ok == 1 else { throw GateFailure(.signature, "libcrypto's BLAKE2b-512 failed") }
        return out
    }

    package func verifyEd25519(key: [UInt8], message: [UInt8], signature: [UInt8]) throws(GateFailure) -> Bool {
        guard key.count == 32, signature.count == 64 else { return false }
        try Self.load()
        let verdict = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                signature.withUnsafeBufferPointer { s in
                    vgc_ed25519_verify(k.baseAddress, m.baseAddress, m.count, s.baseAddress)
                }
            }
        }
        guard verdict >= 0 else { throw GateFailure(.signature, "libcrypto's Ed25519 verification failed") }
        return verdict == 1
    }

    private static func load() throws(GateFailure) {
        var error = [CChar](repeating: 0, count: 256)
        guard vgc_crypto_load(&error, error.count) == 0 else { return }
        throw GateFailure(.signature, String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
