/// What `versiongate lint FILE` says of FILE.minisig beside it: a signature
/// file that no launcher could read, and one whose trusted comment has no
/// timestamp (it verifies, but replays cannot be refused). Whether it
/// matches a key is for the launcher to check: lint has no keys.
package enum SignatureLint {
    package static func problems(_ bytes: [UInt8], signatureName: String) -> [String] {
        switch MinisignSignature.parse(bytes) {
        case .failure(let defect):
            return ["\(signatureName): signature truncated or malformed: \(defect.reason)"]
        case .success(let signature):
            let stamped = DocumentSignature(keyID: signature.keyID, timestamp: signature.timestamp)
            return SignatureCheck.replayNote(stamped, signatureName: signatureName).map { [$0] } ?? []
        }
    }
}
