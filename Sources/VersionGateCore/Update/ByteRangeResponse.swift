/// The byte ranges a response to a Range request carries (RFC 9110: 14.4
/// Content-Range, 14.6 and 14.6.1 multipart/byteranges): what an AppImage
/// update fetches of the new file. Strict: every part must say where it
/// lies in a file of the length the update expects, and carry exactly that
/// many bytes; anything else is a failure, never a guess.
package enum ByteRangeResponse {
    package struct Part: Equatable, Sendable {
        /// Offset of `bytes` in the whole file.
        package let start: Int64
        package let bytes: [UInt8]

        package init(start: Int64, bytes: [UInt8]) { (self.start, self.bytes) = (start, bytes) }
    }

    package struct Failure: Error, Equatable, Sendable {
        package let message: String
        init(_ message: String) { self.message = message }
    }

    /// The parts of a response to a Range request on a file of `length`
    /// bytes: 206 with one Content-Range, 206 multipart/byteranges, or 200
    /// (a server that ignores Range sends the whole file).
    package static func parts(status: Int, contentType: String?, contentRange: String?, body: [UInt8],
                              length: Int64) -> Result<[Part], Failure> {
        switch status {
        case 200:
            guard Int64(body.count) == length else {
                return .failure(Failure("the whole file has \(body.count) bytes, not \(length)"))
            }
            return .success([Part(start: 0, bytes: body)])
        case 206:
            if let contentType, let boundary = boundary(contentType) {
                return multipart(body, boundary: Array(boundary.utf8), length: length)
            }
            guard let contentRange else { return .failure(Failure("a 206 response without Content-Range")) }
            return range(contentRange, length: length).flatMap { (start, count) in
                guard Int64(body.count) == count else {
                    return .failure(Failure("Content-Range \(OneLine.quoted(contentRange, max: 80)) "
                                            + "announces \(count) bytes; the body has \(body.count)"))
                }
                return .success([Part(start: start, bytes: body)])
            }
        default:
            return .failure(Failure("HTTP \(status) to a Range request"))
        }
    }

    /// `bytes FIRST-LAST/LENGTH` → (FIRST, LAST - FIRST + 1); LENGTH must be
    /// `length` (or `*`, unknown) and the range inside it.
    static func range(_ text: String, length: Int64) -> Result<(start: Int64, count: Int64), Failure> {
        let bad = Failure("Content-Range \(OneLine.quoted(text, max: 80)) is not bytes FIRST-LAST/\(length)")
        let trimmed = ASCII.trimmingBlanks(text)
        guard trimmed.utf8.count > 6, trimmed.utf8.prefix(6).map({ $0 | 0x20 }) == Array("bytes ".utf8) else {
            return .failure(bad)
        }
        let spec = trimmed.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return .failure(bad) }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Int64(decimal: String(ends[0])), let last = Int64(decimal: String(ends[1])),
              first <= last, last < length, halves[1] == "*" || Int64(decimal: String(halves[1])) == length else {
            return .failure(bad)
        }
        return .success((first, last - first + 1))
    }

    /// The boundary of a `multipart/byteranges` Content-Type, quoted or not.
    static func boundary(_ contentType: String) -> Substring? {
        let parameters = contentType.split(separator: ";")
        guard let type = parameters.first, ASCII.trimmingBlanks(type).lowercased() == "multipart/byteranges" else {
            return nil
        }
        for parameter in parameters.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, ASCII.trimmingBlanks(pair[0]).lowercased() == "boundary" else { continue }
            var value = Substring(ASCII.trimmingBlanks(pair[1]))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// Each part: `--BOUNDARY` CRLF, header lines, CRLF, exactly the bytes
    /// its Content-Range announces, then CRLF and the next delimiter; the
    /// last delimiter is `--BOUNDARY--`. A preamble before the first is skipped.
    static func multipart(_ body: [UInt8], boundary: [UInt8], length: Int64) -> Result<[Part], Failure> {
        let delimiter = Array("--".utf8) + boundary
        guard var at = find(delimiter, in: body, from: 0) else {
            return .failure(Failure("a multipart/byteranges body without its boundary"))
        }
        var parts: [Part] = []
        while true {
            at += delimiter.count
            if starts(with: Array("--".utf8), in: body, at: at) { break }
            at = skipPadding(body, at)
            guard starts(with: crlf, in: body, at: at) else { return .failure(Failure("a part's delimiter is not followed by CRLF")) }
            at += 2
            guard let headersEnd = find(crlf + crlf, in: body, from: at - 2) else {
                return .failure(Failure("a part's headers do not end"))
            }
            var contentRange: String?
            for line in body[at..<max(at, headersEnd)].split(separator: 0x0A) {
                let text = String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
                let pair = text.split(separator: ":", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "content-range" { contentRange = String(pair[1]) }
            }
            guard let contentRange else { return .failure(Failure("a part without Content-Range")) }
            let start: Int64, count: Int64
            switch range(contentRange, length: length) {
            case .failure(let failure): return .failure(failure)
            case .success(let found): (start, count) = found
            }
            at = headersEnd + 4
            guard count <= Int64(body.count - at) else { return .failure(Failure("a part is cut short")) }
            let end = at + Int(count)
            parts.append(Part(start: start, bytes: Array(body[at..<end])))
            guard starts(with: crlf + delimiter, in: body, at: end) else {
                return .failure(Failure("a part is longer than its Content-Range"))
            }
            at = end + 2
        }
        guard !parts.isEmpty else { return .failure(Failure("a multipart/byteranges body with no part")) }
        return .success(parts)
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]

    private static func starts(with needle: [UInt8], in body: [UInt8], at index: Int) -> Bool {
        index >= 0 && body.count - index >= needle.count && body[index..<(index + needle.count)].elementsEqual(needle)
    }

    private static func find(_ needle: [UInt8], in body: [UInt8], from index: Int) -> Int? {
        guard let first = needle.first, index >= 0 else { return nil }
        var at = index
        while body.count - at >= needle.count {
            guard let next = body[at...].firstIndex(of: first) else { return nil }
            if starts(with: needle, in: body, at: next) { return next }
            at = next + 1
        }
        return nil
    }

    /// Transport padding (RFC 2046): blanks before a delimiter's CRLF.
    private static func skipPadding(_ body: [UInt8], _ index: Int) -> Int {
        var at = index
        while at < body.count, ASCII.isBlank(body[at]) { at += 1 }
        return at
    }
}
