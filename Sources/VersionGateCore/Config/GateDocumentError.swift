/// Why a gate document (or any JSON we read) was rejected. Every case leads
/// to UP_TO_DATE (docs/design.md, "The gate rule"); `message` is for the error report.
package enum GateDocumentError: Error, Equatable {
    case tooLarge(bytes: Int)
    /// Not UTF-8, or has a NUL byte (never valid in JSON text; a UTF-16 or
    /// UTF-32 file shows up this way).
    case notUTF8
    case tooDeep(limit: Int)
    case invalidJSON(detail: String)
    case notAnObject

    /// A short English phrase; the caller prefixes the source, e.g. "gate.json ".
    package var message: String {
        switch self {
        case .tooLarge(let bytes): "is too large (\(bytes) bytes, the limit is \(GateDocument.maxBytes))"
        case .notUTF8: "is not UTF-8 text"
        case .tooDeep(let limit): "is nested deeper than \(limit) levels"
        case .invalidJSON(let detail): "is not valid JSON (\(detail))"
        case .notAnObject: "is not a JSON object"
        }
    }
}
