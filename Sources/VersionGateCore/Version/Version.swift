/// A valid version (docs/design.md, "Versions"), borrowed: the bytes it was parsed from plus
/// where its parts lie. Non-escaping use only: it does not own the bytes.
///
/// Parsing walks the bytes once and stores only offsets, so checking a
/// version allocates nothing. Every accepted byte is ASCII, which also makes
/// the "valid UTF-8" rule hold for free.
package struct Version {
    package static let maxBytes = 256

    /// Where the raw bytes start; every offset below lies within them.
    /// Offsets are UInt16 (they are ≤ maxBytes) so that a Version travels in
    /// registers: returning it through memory measurably slowed compare.
    package let base: UnsafePointer<UInt8>
    /// What the caller wrote, without surrounding spaces/tabs/CR/LF.
    package let textStart: UInt16
    package let textEnd: UInt16
    /// `N(.N)*`, after any `v`.
    package let releaseStart: UInt16
    package let releaseEnd: UInt16
    /// Whether a release component is written with a leading zero (`1.01`):
    /// without one, compare can take its one-pass road.
    package let releaseHasLeadingZeros: Bool
    /// The identifiers after `-`; an empty range means no pre-release
    /// (a present one is never empty).
    package let preStart: UInt16
    package let preEnd: UInt16

    /// nil when `bytes` is not a valid version (docs/design.md, "Versions"). `bytes` is the raw
    /// text before trimming, e.g. a C string's bytes without its NUL.
    @inline(__always)  // parsed twice per compare: spare the call
    package init?(bytes: UnsafeBufferPointer<UInt8>) {
        // The limit applies to the raw text, so padding cannot smuggle in more.
        guard bytes.count <= Version.maxBytes, let base = bytes.baseAddress else { return nil }
        // Indices below stay within [0, count] ≤ maxBytes: `&+` cannot wrap.
        var start = 0
        var end = bytes.count
        while start < end, isTrimmable(base[start]) { start &+= 1 }
        while end > start, isTrimmable(base[end &- 1]) { end &-= 1 }

        var i = start
        if i < end, base[i] == Byte.v || base[i] == Byte.capitalV { i &+= 1 }
        let releaseStart = i
        guard let release = scanRelease(base, from: i, to: end) else { return nil }
        i = release.end

        var preStart = i
        var preEnd = i
        if i < end, base[i] == Byte.hyphen {
            preStart = i &+ 1
            guard let stop = scanIdentifiers(base, from: preStart, to: end, numericMayHaveLeadingZero: false)
            else { return nil }
            preEnd = stop
            i = stop
        }
        if i < end, base[i] == Byte.plus {
            // Build metadata is validated, then never looked at again.
            guard let stop = scanIdentifiers(base, from: i &+ 1, to: end, numericMayHaveLeadingZero: true)
            else { return nil }
            i = stop
        }
        guard i == end else { return nil }

        self.base = base
        self.textStart = UInt16(truncatingIfNeeded: start)
        self.textEnd = UInt16(truncatingIfNeeded: end)
        self.releaseStart = UInt16(truncatingIfNeeded: releaseStart)
        self.releaseEnd = UInt16(truncatingIfNeeded: release.end)
        self.releaseHasLeadingZeros = release.hasLeadingZeros
        self.preStart = UInt16(truncatingIfNeeded: preStart)
        self.preEnd = UInt16(truncatingIfNeeded: preEnd)
    }

    /// What the caller wrote, without surrounding spaces (borrowed like the version).
    package var trimmedBytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(textStart), count: Int(textEnd) - Int(textStart))
    }

    /// The trimmed text, for display (allocates; never on the compare path).
    package var trimmedText: String { String(decoding: trimmedBytes, as: UTF8.self) }
}

/// A C string's bytes, scanning at most `Version.maxBytes + 1` bytes: a huge
/// input is never fully scanned, and the parser rejects it as too long.
package func versionBytes(cString: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
    // CChar and UInt8 may alias each other (same size, signed/unsigned pair).
    let start = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
    var count = 0
    while count <= Version.maxBytes, start[count] != 0 { count += 1 }
    return UnsafeBufferPointer(start: start, count: count)
}

/// Parses a Swift string (e.g. a threshold from a config) and hands the
/// result to `body`; nil when invalid. The Version must not escape `body`.
package func withVersion<R>(_ text: String, _ body: (Version?) -> R) -> R {
    var text = text
    return text.withUTF8 { body(Version(bytes: $0)) }
}

extension Version {
    /// -1, 0 or 1 for two versions as Swift strings (e.g. from a config);
    /// nil when either is invalid.
    package static func compare(_ a: String, _ b: String) -> Int? {
        withVersion(a) { left in withVersion(b) { right in left.flatMap { l in right.map { l.compare(to: $0) } } } }
    }
}

// MARK: - Grammar pieces

extension Version {
    /// The bytes the grammar names; nested so the module namespace stays clean.
    package enum Byte {
        package static let zero = UInt8(ascii: "0")
        package static let dot = UInt8(ascii: ".")
        package static let hyphen = UInt8(ascii: "-")
        package static let plus = UInt8(ascii: "+")
        package static let v = UInt8(ascii: "v")
        package static let capitalV = UInt8(ascii: "V")

        @inline(__always)
        package static func isDigit(_ byte: UInt8) -> Bool {
            byte &- 0x30 < 10  // wraps below '0' to a large value
        }
    }
}

/// Only these four: NBSP, vertical tab and other Unicode spaces stay, and fail.
@inline(__always)
private func isTrimmable(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
}

/// `[0-9A-Za-z-]`
@inline(__always)
private func isIdentifierByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D: return true
    default: return false
    }
}

/// Scans `N(.N)*`; returns where it stops and whether a component has a
/// leading zero, nil when a component is empty or above 2^63−1.
/// The hot path: work per digit is one test, per component a few.
@inline(__always)
private func scanRelease(
    _ b: UnsafePointer<UInt8>, from start: Int, to end: Int
) -> (end: Int, hasLeadingZeros: Bool)? {
    var i = start
    var componentStart = start
    var hasLeadingZeros = false
    while i < end {
        let byte = b[i]
        if Version.Byte.isDigit(byte) {
            i &+= 1  // indices stay ≤ maxBytes: no overflow
            continue
        }
        guard byte == Version.Byte.dot, i > componentStart else { break }
        if b[componentStart] == Version.Byte.zero, i &- componentStart > 1 { hasLeadingZeros = true }
        i &+= 1
        componentStart = i
    }
    // Catches an empty release, `1..2`, `.1` and `1.`.
    guard i > componentStart else { return nil }
    if b[componentStart] == Version.Byte.zero, i &- componentStart > 1 { hasLeadingZeros = true }
    // A release shorter than 19 bytes cannot hold a 19-digit component.
    if i &- start >= int64MaxDigits.utf8CodeUnitCount, !componentsFitInInt64(b, from: start, to: i) {
        return nil
    }
    return (i, hasLeadingZeros)
}

/// The slow, rare check: every component of a valid-looking release ≤ 2^63−1.
private func componentsFitInInt64(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    var componentStart = start
    var i = start
    while i <= end {
        if i == end || b[i] == Version.Byte.dot {
            if !fitsInInt64(b, from: componentStart, to: i) { return false }
            componentStart = i + 1
        }
        i += 1
    }
    return true
}

/// Scans `.`-separated `[0-9A-Za-z-]+` identifiers; returns where they stop,
/// nil when one is empty or (in a pre-release) numeric with a leading zero.
private func scanIdentifiers(
    _ b: UnsafePointer<UInt8>, from start: Int, to end: Int, numericMayHaveLeadingZero: Bool
) -> Int? {
    var i = start
    while true {
        let identifierStart = i
        var numeric = true
        while i < end, isIdentifierByte(b[i]) {
            if !Version.Byte.isDigit(b[i]) { numeric = false }
            i += 1
        }
        guard i > identifierStart else { return nil }
        let leadingZero = i - identifierStart > 1 && b[identifierStart] == Version.Byte.zero
        if numeric, leadingZero, !numericMayHaveLeadingZero { return nil }
        guard i < end, b[i] == Version.Byte.dot else { return i }
        i += 1
    }
}

private let int64MaxDigits: StaticString = "9223372036854775807"

/// Whether the digits in [start, end) are ≤ 2^63−1, decided on the digits
/// themselves so no arithmetic can overflow.
private func fitsInInt64(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    var first = start
    while first < end, b[first] == Version.Byte.zero { first += 1 }
    let length = end - first
    let limitLength = int64MaxDigits.utf8CodeUnitCount
    if length != limitLength { return length < limitLength }
    let limit = int64MaxDigits.utf8Start
    for k in 0..<limitLength where b[first + k] != limit[k] {
        return b[first + k] < limit[k]
    }
    return true
}
