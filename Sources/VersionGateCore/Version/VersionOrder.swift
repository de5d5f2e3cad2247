/// The order of docs/design.md, "Versions": release components numerically (missing ones are 0),
/// then the pre-release as semver.org §11 says; build metadata never counts.
///
/// Numbers are compared as digit strings (significant length, then bytes), so
/// there is no size limit, no arithmetic on values and no allocation.
extension Version {
    /// -1, 0, 1
    package func compare(to other: Version) -> Int {
        let release = releaseHasLeadingZeros || other.releaseHasLeadingZeros
            ? compareReleasesByComponent(other)
            : compareReleasesInOnePass(other)
        if release != 0 || (preStart == preEnd && other.preStart == other.preEnd) { return release }
        return comparePreReleases(other)
    }

    /// Without leading zeros, a component with more digits is larger, so the
    /// first byte where the releases differ decides (the common, fast case).
    private func compareReleasesInOnePass(_ other: Version) -> Int {
        let end = Int(releaseEnd)
        let otherEnd = Int(other.releaseEnd)
        var i = Int(releaseStart)
        var j = Int(other.releaseStart)
        let common = min(end &- i, otherEnd &- j)  // indices stay ≤ maxBytes
        var k = 0
        while k < common, base[i &+ k] == other.base[j &+ k] { k &+= 1 }
        i &+= k
        j &+= k
        // Equal so far: the same component on both sides, with the same digits.
        let mineGoesOn = i < end && base[i] != Byte.dot
        let theirsGoesOn = j < otherEnd && other.base[j] != Byte.dot
        switch (mineGoesOn, theirsGoesOn) {
        case (true, true):
            // More digits left is larger; as many: the differing digit decides.
            let mineLeft = digitsLeft(base, from: i, to: end)
            let theirsLeft = digitsLeft(other.base, from: j, to: otherEnd)
            if mineLeft != theirsLeft { return mineLeft < theirsLeft ? -1 : 1 }
            return base[i] < other.base[j] ? -1 : 1
        case (true, false): return 1
        case (false, true): return -1
        case (false, false):
            // Both components ended: extra components on one side count only
            // when one of them is not zero.
            if hasNonZeroDigit(base, from: i, to: end) { return 1 }
            if hasNonZeroDigit(other.base, from: j, to: otherEnd) { return -1 }
            return 0
        }
    }

    /// The general road: one component pair at a time, leading zeros skipped.
    private func compareReleasesByComponent(_ other: Version) -> Int {
        let end = Int(releaseEnd)
        let otherEnd = Int(other.releaseEnd)
        var i = Int(releaseStart)
        var j = Int(other.releaseStart)
        // Each step passes at least one component, so this ends.
        while i < end || j < otherEnd {
            // Leading zeros do not count; a missing component is an empty one.
            while i < end, base[i] == Byte.zero { i += 1 }
            while j < otherEnd, other.base[j] == Byte.zero { j += 1 }
            // Equal-length digit strings are ordered by their first difference.
            var firstDifference = 0
            while i < end, j < otherEnd, base[i] != Byte.dot, other.base[j] != Byte.dot {
                if firstDifference == 0, base[i] != other.base[j] {
                    firstDifference = base[i] < other.base[j] ? -1 : 1
                }
                i += 1
                j += 1
            }
            // More significant digits left on one side: that side is larger.
            let mineLonger = i < end && base[i] != Byte.dot
            let theirsLonger = j < otherEnd && other.base[j] != Byte.dot
            if mineLonger != theirsLonger { return mineLonger ? 1 : -1 }
            if firstDifference != 0 { return firstDifference }
            i += i < end ? 1 : 0  // past the dot
            j += j < otherEnd ? 1 : 0
        }
        return 0
    }

    private func comparePreReleases(_ other: Version) -> Int {
        let mineIsPre = preStart < preEnd
        let theirsIsPre = other.preStart < other.preEnd
        // A pre-release sorts before its release.
        if !mineIsPre || !theirsIsPre { return mineIsPre == theirsIsPre ? 0 : (mineIsPre ? -1 : 1) }
        let end = Int(preEnd)
        let otherEnd = Int(other.preEnd)
        var i = Int(preStart)
        var j = Int(other.preStart)
        while i < end, j < otherEnd {
            let mine = nextIdentifier(base, from: i, to: end)
            let theirs = nextIdentifier(other.base, from: j, to: otherEnd)
            let order: Int
            switch (mine.numeric, theirs.numeric) {
            case (true, true): order = compareDigits(base, mine.range, other.base, theirs.range)
            case (true, false): return -1  // numeric < alphanumeric
            case (false, true): return 1
            case (false, false): order = compareBytes(base, mine.range, other.base, theirs.range)
            }
            if order != 0 { return order }
            i = mine.next
            j = theirs.next
        }
        // A list that is a prefix of the other is smaller.
        let mineLeft = i < end
        let theirsLeft = j < otherEnd
        return mineLeft == theirsLeft ? 0 : (mineLeft ? 1 : -1)
    }
}

/// How many digits follow `start` before the component ends.
@inline(__always)
private func digitsLeft(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
    var i = start
    while i < end, b[i] != Version.Byte.dot { i &+= 1 }
    return i &- start
}

/// Whether a digit other than 0 lies in [start, end) (dots are skipped).
private func hasNonZeroDigit(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    var i = start
    while i < end {
        if b[i] != Version.Byte.zero, b[i] != Version.Byte.dot { return true }
        i &+= 1
    }
    return false
}

/// The pre-release identifier at `start`, whether it is all digits, and
/// where the next begins.
@inline(__always)
private func nextIdentifier(
    _ b: UnsafePointer<UInt8>, from start: Int, to end: Int
) -> (range: Range<Int>, numeric: Bool, next: Int) {
    var i = start
    var numeric = true
    while i < end, b[i] != Version.Byte.dot {
        if !Version.Byte.isDigit(b[i]) { numeric = false }
        i += 1
    }
    return (start..<i, numeric, i < end ? i + 1 : i)
}

/// Digit strings without leading zeros: the longer is larger, else bytewise.
@inline(__always)
private func compareDigits(
    _ a: UnsafePointer<UInt8>, _ ra: Range<Int>, _ b: UnsafePointer<UInt8>, _ rb: Range<Int>
) -> Int {
    if ra.count != rb.count { return ra.count < rb.count ? -1 : 1 }
    return compareBytes(a, ra, b, rb)
}

/// ASCII order; a prefix is smaller.
@inline(__always)
private func compareBytes(
    _ a: UnsafePointer<UInt8>, _ ra: Range<Int>, _ b: UnsafePointer<UInt8>, _ rb: Range<Int>
) -> Int {
    var i = ra.lowerBound
    var j = rb.lowerBound
    while i < ra.upperBound, j < rb.upperBound {
        if a[i] != b[j] { return a[i] < b[j] ? -1 : 1 }
        i += 1
        j += 1
    }
    let aLeft = ra.upperBound - i
    let bLeft = rb.upperBound - j
    return aLeft == bLeft ? 0 : (aLeft < bLeft ? -1 : 1)
}
