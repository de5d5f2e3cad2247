import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Fetches the byte ranges of a file an AppImage update needs, as the
/// assembler asks for them in ascending order: on a miss, one Range request
/// for the next ranges still wanted (at most `rangesPerRequest`, about
/// `bytesPerRequest`), so a large delta is neither one request per block
/// nor held in memory at once. Each body is capped at what was asked for,
/// so the whole download stays within the file's declared length.
struct RangeFetcher {
    static let rangesPerRequest = 32
    static let bytesPerRequest: UInt64 = 8 << 20
    /// Room in a response for multipart headers: per part, and once.
    static let overheadPerPart = 256, overhead = 1024

    let url: String
    /// The whole file's length (the control file's): every part must say it.
    let length: UInt64
    let limits: TransportLimits
    let transport: any HTTPTransport
    /// Still to fetch, ascending; `pending[next...]` not yet asked for.
    private var pending: [Range<UInt64>]
    private var next = 0
    private var parts: [ByteRangeResponse.Part] = []
    private(set) var fetchedBytes: UInt64 = 0
    /// Why the last fetch failed (the assembler only learns that bytes are missing).
    private(set) var failure: String?

    init(url: String, ranges: [Range<UInt64>], length: UInt64, limits: TransportLimits, transport: any HTTPTransport) {
        (self.url, self.pending, self.length, self.limits, self.transport) = (url, ranges, length, limits, transport)
    }

    /// The bytes of `range`, fetched when not already here; nil on failure.
    mutating func bytes(_ range: Range<UInt64>) -> [UInt8]? {
        parts.removeAll { UInt64(clamping: $0.start) + UInt64($0.bytes.count) <= range.lowerBound }
        if let found = extract(range) { return found }
        guard fetch(covering: range) else { return nil }
        return extract(range)
    }

    private mutating func fetch(covering wanted: Range<UInt64>) -> Bool {
        while next < pending.count, pending[next].upperBound <= wanted.lowerBound { next += 1 }
        var batch: [Range<UInt64>] = []
        var total: UInt64 = 0
        while next < pending.count, batch.count < Self.rangesPerRequest, total < Self.bytesPerRequest {
            let range = max(pending[next].lowerBound, wanted.lowerBound)..<pending[next].upperBound
            // Enough of a long range for this request, and at least what is wanted now.
            let budget = max(Self.bytesPerRequest - total, batch.isEmpty ? UInt64(wanted.count) : 0)
            let end = range.upperBound - range.lowerBound > budget ? range.lowerBound + budget : range.upperBound
            batch.append(range.lowerBound..<end)
            total += end - range.lowerBound
            if end == pending[next].upperBound { next += 1 } else { pending[next] = end..<pending[next].upperBound }
        }
        guard let first = batch.first, first.lowerBound <= wanted.lowerBound else {
            failure = "bytes \(wanted.lowerBound)-\(wanted.upperBound - 1) were never asked for"
            return false
        }
        var limits = self.limits
        limits.maxBodyBytes = Int(clamping: total) + batch.count * Self.overheadPerPart + Self.overhead
        let header = "bytes=" + batch.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ",")
        let response: HTTPResponse
        do throws(TransportError) {
            response = try transport.send(HTTPRequest(url: url, headers: [("Range", header)]), limits: limits)
        } catch {
            failure = error.message
            return false
        }
        fetchedBytes += UInt64(response.body.count)
        switch ByteRangeResponse.parts(status: response.status, contentType: response.header("content-type"),
                                       contentRange: response.header("content-range"), body: response.body,
                                       length: Int64(clamping: length)) {
        case .failure(let refused):
            failure = "\(url): \(refused.message)"
            return false
        case .success(let received):
            parts.append(contentsOf: received)
            parts.sort { $0.start < $1.start }
            return true
        }
    }

    /// `range` from the parts here, when they hold all of it.
    private func extract(_ range: Range<UInt64>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        var at = range.lowerBound
        for part in parts where at < range.upperBound {
            let start = UInt64(clamping: part.start), end = start + UInt64(part.bytes.count)
            guard start <= at, at < end else { continue }
            let stop = min(end, range.upperBound)
            bytes += part.bytes[Int(at - start)..<Int(stop - start)]
            at = stop
        }
        return at == range.upperBound ? bytes : nil
    }
}
