/// The fast road for two C strings that are plain `N(.N)*` releases; the
/// parser keeps the last word on everything else.
extension Version {
    /// Compares two C strings: -1, 0, 1, or nil when either is not a valid
    /// version. The road `vg_version_compare` and `Gate.decide` on C strings take.
    ///
    /// Most versions are plain `N(.N)*`: no `v`, spaces, pre-release, build,
    /// leading zeros or 19-digit components. Two plain strings are checked
    /// and compared in one walk over both, the bytes they share looked at
    /// once; anything else goes to the general parser, which has the last
    /// word on validity.
    package static func compare(cString a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Int? {
        // CChar and UInt8 may alias each other (same size, signed/unsigned pair).
        let x = UnsafeRawPointer(a).assumingMemoryBound(to: UInt8.self)
        let y = UnsafeRawPointer(b).assumingMemoryBound(to: UInt8.self)
        if let order = comparePlain(x, y) { return order }
        guard let first = Version(bytes: versionBytes(cString: a)),
              let second = Version(bytes: versionBytes(cString: b)) else { return nil }
        return first.compare(to: second)
    }
}

/// Two NUL-terminated plain releases compared; nil when either is not plain
/// (which says nothing about validity). A byte is read only when every byte
/// before it was a digit or a dot, so never past a NUL, and at most
/// `maxBytes + 1` of each string.
@inline(__always)
private func comparePlain(_ x: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>) -> Int? {
    // While both agree, the bytes are checked once for the two.
    var i = 0
    var componentStart = 0
    while i < Version.maxBytes {
        let byte = x[i]
        guard byte == y[i] else { break }
        if Version.Byte.isDigit(byte) {
            i &+= 1  // ≤ maxBytes: no wrap
            continue
        }
        guard byte == Version.Byte.dot else { break }  // both end here, or not plain
        guard isPlainComponent(x, from: componentStart, to: i) else { return nil }
        i &+= 1
        componentStart = i
    }
    guard let mine = plainRest(x, from: i, componentStart: componentStart),
          let theirs = plainRest(y, from: i, componentStart: componentStart) else { return nil }
    // As in compareReleasesInOnePass: the same component on both sides, with
    // the same digits up to `i`.
    switch (mine.digitsLeft > 0, theirs.digitsLeft > 0) {
    case (true, true):
        // More digits left is larger; as many: the differing digit decides.
        if mine.digitsLeft != theirs.digitsLeft { return mine.digitsLeft < theirs.digitsLeft ? -1 : 1 }
        return x[i] < y[i] ? -1 : 1
    case (true, false): return 1
    case (false, true): return -1
    case (false, false):
        // Both components ended; extra ones count only when not zero.
        if mine.nonZeroAfter { return 1 }
        if theirs.nonZeroAfter { return -1 }
        return 0
    }
}

/// Checks a plain release from `start` (inside the component that began at
/// `componentStart`) to its NUL. Returns how many digits that component has
/// from `start` on, and whether a later component is not zero; nil when the
/// text is not plain.
@inline(__always)
private func plainRest(
    _ s: UnsafePointer<UInt8>, from start: Int, componentStart: Int
) -> (digitsLeft: Int, nonZeroAfter: Bool)? {
    var i = start
    var componentStart = componentStart
    var digitsLeft = -1
    var nonZeroAfter = false
    while i <= Version.maxBytes {
        let byte = s[i]
        if Version.Byte.isDigit(byte) {
            i &+= 1
            continue
        }
        guard isPlainComponent(s, from: componentStart, to: i) else { return nil }
        if digitsLeft < 0 {
            digitsLeft = i &- start
        } else if i &- componentStart > 1 || s[componentStart] != Version.Byte.zero {
            nonZeroAfter = true  // without leading zeros, only "0" is zero
        }
        if byte == 0 { return (digitsLeft, nonZeroAfter) }
        guard byte == Version.Byte.dot else { return nil }
        i &+= 1
        componentStart = i
    }
    return nil  // longer than maxBytes: the general parser says so
}

/// Non-empty, no leading zero, fewer than 19 digits (so ≤ 2^63−1 for sure).
@inline(__always)
private func isPlainComponent(_ s: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    let length = end &- start
    return length > 0 && length < 19 && (length == 1 || s[start] != Version.Byte.zero)
}
