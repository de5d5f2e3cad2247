/// Why bytes are not a zsync control file this reader accepts; `message`
/// is one line for the log and the update's failure.
package enum ZsyncControlError: Error, Equatable, Sendable {
    case tooLarge(bytes: Int)
    case headerUnterminated
    case lineTooLong(line: Int)
    case tooManyLines
    case malformedLine(line: Int)
    case controlCharacter(line: Int)
    case notUTF8(line: Int)
    case duplicateKey(String)
    case unknownKey(String)
    case unsupportedVersion(String)
    /// Z-URL, Z-Map2, Z-Filename or Recompress: the target is a compressed
    /// stream, which this reader does not rebuild.
    case compressedTarget(key: String)
    case missingKey(String)
    case badValue(key: String, reason: String)
    case checksumsSize(expected: Int, actual: Int)

    package var message: String {
        switch self {
        case .tooLarge(let bytes): return "zsync control file of \(bytes) bytes is over the \(ZsyncControl.maxBytes) limit"
        case .headerUnterminated: return "zsync control file: no empty line ends the header"
        case .lineTooLong(let line): return "zsync control file: header line \(line) is over \(ZsyncControl.maxLineBytes) bytes"
        case .tooManyLines: return "zsync control file: over \(ZsyncControl.maxHeaderLines) header lines"
        case .malformedLine(let line): return "zsync control file: header line \(line) is not 'Key: value'"
        case .controlCharacter(let line): return "zsync control file: header line \(line) holds a control character"
        case .notUTF8(let line): return "zsync control file: header line \(line) is not UTF-8"
        case .duplicateKey(let key): return "zsync control file: '\(key)' appears twice"
        case .unknownKey(let key): return "zsync control file: unknown header '\(key)' (not listed as Safe)"
        case .unsupportedVersion(let version): return "zsync control file: version \(version) is not supported"
        case .compressedTarget(let key): return "zsync control file: '\(key)' means a compressed target, which is not supported"
        case .missingKey(let key): return "zsync control file: no '\(key)' header"
        case .badValue(let key, let reason): return "zsync control file: '\(key)' \(reason)"
        case .checksumsSize(let expected, let actual):
            return "zsync control file: \(actual) bytes of block checksums where the header means \(expected)"
        }
    }
}
