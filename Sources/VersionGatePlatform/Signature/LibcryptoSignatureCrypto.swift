import CryptoShim
import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

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

    /// BLAKE2b-512 of `length` bytes of `fd` from offset 0, read 1 MiB at a
    /// time: a file too large to hold (an AppImage).
    package func blake2b512(of fd: Int32, length: UInt64) throws(GateFailure) -> [UInt8] {
        try Self.load()
        guard let context = vgc_blake2b512_begin() else { throw GateFailure(.signature, "libcrypto's BLAKE2b-512 failed") }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while offset < length {
            let want = Int(min(UInt64(chunk.count), length - offset))
            let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(Int64(bitPattern: offset))) }
            if got < 0 && systemErrno == EINTR { continue }
            guard got > 0, chunk.withUnsafeBytes({ vgc_blake2b512_update(context, $0.baseAddress, got) }) == 1 else {
                _ = vgc_blake2b512_finish(context, nil)
                throw GateFailure(.signature, got > 0 ? "libcrypto's BLAKE2b-512 failed" : "the file ended early")
            }
            offset += UInt64(got)
        }
        var out = [UInt8](repeating: 0, count: 64)
        guard out.withUnsafeMutableBufferPointer({ vgc_blake2b512_finish(context, $0.baseAddress) }) == 1 else {
            throw GateFailure(.signature, "libcrypto's BLAKE2b-512 failed")
        }
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
