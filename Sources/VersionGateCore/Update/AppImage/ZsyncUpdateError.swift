/// Why a zsync update could not be built: the seed could not be read, or
/// what the server sent does not match the control file (`message` is one
/// line for the log and the update's failure).
package enum ZsyncUpdateError: Error, Equatable, Sendable {
    case seedUnreadable(offset: UInt64)
    case fetchedRangeMissing(Range<UInt64>)
    case fetchedRangeWrongSize(Range<UInt64>, got: Int)
    case fetchedBlockCorrupt(block: Int)
    case sha1Mismatch
    case writeFailed(offset: UInt64)

    package var message: String {
        switch self {
        case .seedUnreadable(let offset): return "zsync: the running AppImage could not be read at byte \(offset)"
        case .fetchedRangeMissing(let range): return "zsync: bytes \(range.lowerBound)-\(range.upperBound - 1) were not fetched"
        case .fetchedRangeWrongSize(let range, let got):
            return "zsync: \(got) bytes came for bytes \(range.lowerBound)-\(range.upperBound - 1)"
        case .fetchedBlockCorrupt(let block): return "zsync: fetched block \(block) does not match the control file's MD4"
        case .sha1Mismatch: return "zsync: the rebuilt file's SHA-1 is not the control file's"
        case .writeFailed(let offset): return "zsync: writing the new file failed at byte \(offset)"
        }
    }
}
