/// What a verified signature vouches for a document: which key signed it
/// and when (the trusted comment's timestamp). Kept with the config, so a
/// cached config stays tied to a key that is still trusted, and an older
/// signed document cannot replace a newer one (rollback).
package struct DocumentSignature: Sendable, Equatable {
    package var keyID: [UInt8]
    /// Unix seconds from the trusted comment; nil when it carries none.
    package var timestamp: Int64?

    package init(keyID: [UInt8], timestamp: Int64?) {
        self.keyID = keyID
        self.timestamp = timestamp
    }
}
