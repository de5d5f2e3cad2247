/// A minisign signature file (`<document>.minisig`), parsed strictly:
///
///     untrusted comment: <at most 1024 bytes, not signed>
///     <base64 of algorithm (2) + key id (8) + Ed25519 signature (64)>
///     trusted comment: <at most 8192 bytes>
///     <base64 of the global signature (64) over signature + trusted comment>
///
/// Four lines, each ending in LF (CRLF tolerated, the last LF optional),
/// nothing else. The limits are minisign's own.
package struct MinisignSignature: Sendable, Equatable {
    package enum Algorithm: Sendable, Equatable {
        /// "ED": the signature covers BLAKE2b-512 of the document (minisign 0.11's default).
        case prehashed
        /// "Ed": the signature covers the document itself (minisign -l, signify).
        case legacy
    }

    package static let maxFileBytes = 16 << 10
    private static let maxUntrustedCommentBytes = 1024
    private static let maxTrustedCommentBytes = 8192
    private static let untrustedPrefix = Array("untrusted comment: ".utf8)
    private static let trustedPrefix = Array("trusted comment: ".utf8)

    package let algorithm: Algorithm
    package let keyID: [UInt8]
    package let signature: [UInt8]
    /// The trusted comment's text, without its "trusted comment: " prefix.
    package let trustedComment: [UInt8]
    package let globalSignature: [UInt8]

    /// The signature, or what is wrong with the file (a short phrase).
    package static func parse(_ bytes: [UInt8]) -> Result<MinisignSignature, SignatureDefect> {
        guard bytes.count <= maxFileBytes else { return .failure(SignatureDefect("over \(maxFileBytes) bytes")) }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count == 4 else { return .failure(SignatureDefect("\(lines.count) lines instead of 4")) }
        let text = lines.map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }

        guard text[0].starts(with: untrustedPrefix),
              text[0].count - untrustedPrefix.count <= maxUntrustedCommentBytes else {
            return .failure(SignatureDefect("line 1 is not an untrusted comment"))
        }
        guard let raw = StrictBase64.decode(text[1], maxBytes: 74), raw.count == 74 else {
            return .failure(SignatureDefect("line 2 is not the base64 of a 74-byte signature"))
        }
        let algorithm: Algorithm
        switch (raw[0], raw[1]) {
        case (UInt8(ascii: "E"), UInt8(ascii: "D")): algorithm = .prehashed
        case (UInt8(ascii: "E"), UInt8(ascii: "d")): algorithm = .legacy
        default: return .failure(SignatureDefect("unknown signature algorithm"))
        }
        guard text[2].starts(with: trustedPrefix),
              text[2].count - trustedPrefix.count <= maxTrustedCommentBytes else {
            return .failure(SignatureDefect("line 3 is not a trusted comment"))
        }
        guard let global = StrictBase64.decode(text[3], maxBytes: 64), global.count == 64 else {
            return .failure(SignatureDefect("line 4 is not the base64 of a 64-byte global signature"))
        }
        return .success(MinisignSignature(algorithm: algorithm, keyID: Array(raw[2..<10]),
                                          signature: Array(raw[10..<74]),
                                          trustedComment: Array(text[2].dropFirst(trustedPrefix.count)),
                                          globalSignature: global))
    }

    /// What the global signature covers: the signature, then the trusted comment.
    package var globallySigned: [UInt8] { signature + trustedComment }

    /// The trusted comment's `timestamp:<unix seconds>` field; nil when there
    /// is none. Fields are separated by any ASCII blank: minisign writes
    /// "timestamp:N\tfile:NAME…", an operator's `-t` often uses spaces. The
    /// first field that starts with `timestamp:` decides: digits only, or none.
    package var timestamp: Int64? {
        for field in trustedComment.split(whereSeparator: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") }) {
            let prefix = Array("timestamp:".utf8)
            guard field.starts(with: prefix) else { continue }
            let digits = field.dropFirst(prefix.count)
            return Int64(decimal: String(decoding: digits, as: UTF8.self))
        }
        return nil
    }
}

/// Why a signature file could not be read as one.
package struct SignatureDefect: Error, Sendable, Equatable {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}
