/// The rollback rule for signed documents: one signed before the newest
/// trusted timestamp seen for it is refused (equal is the same release read
/// again; no timestamp counts as the oldest). Pure: a source passes in every
/// timestamp it has seen for the document and remembers what is returned.
package enum RollbackRule {
    /// The signature's timestamp to remember (nil: it has none), or the refusal.
    package static func admit(_ signature: DocumentSignature, seen: [Int64?], document: String)
        -> Result<Int64?, GateFailure> {
        guard let newest = seen.compactMap({ $0 }).max(), (signature.timestamp ?? 0) < newest else {
            return .success(signature.timestamp)
        }
        let when = signature.timestamp.map { "signed at timestamp \($0)" } ?? "signed without a timestamp"
        return .failure(GateFailure(.signature, "rollback refused: \(document) is \(when), older than the trusted "
                                    + "timestamp \(newest) already seen"))
    }
}
