/// Application identifiers checked before they go into a URL. Each check
/// returns nil for an acceptable id, else a short reason. Everything is
/// ASCII-only and byte-based: `Character.isLetter` / `isNumber` would accept
/// non-ASCII letters and digits that no store accepts.
package enum AppID {
    package static let maxBytes = 255

    /// An AppStream component id / Flatpak app id (Flathub): at least two
    /// `.`-separated segments of `[A-Za-z0-9_-]`, each starting with a letter
    /// or `_` (AppStream spec `<id/>`; Flathub's API rule
    /// `^[A-Za-z_][\w\-\.]+$` with `\w` taken as ASCII), at most 255 bytes.
    /// Flathub's extra 6-byte minimum is not enforced: it is an API route
    /// rule, and every real Flatpak id (3+ segments) is longer anyway.
    package static func componentIDRefusal(_ id: String) -> String? {
        reverseDNSRefusal(id, segmentStart: { ASCII.isLetter($0) || $0 == UInt8(ascii: "_") },
                          startRule: "start with a letter or _")
    }

    /// An Apple bundle id (CFBundleIdentifier): Apple allows `[A-Za-z0-9.-]`
    /// with no rule on the first character (real ids such as
    /// `com.9gag.ios.mobile` start a segment with a digit); `_` is tolerated
    /// because older ids carry it. Segments must not start with `-`.
    package static func bundleIDRefusal(_ id: String) -> String? {
        reverseDNSRefusal(id, segmentStart: { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") },
                          startRule: "start with a letter, digit or _")
    }

    /// A snap name (snapd's rule): 2-40 characters of `[a-z0-9-]`, at least
    /// one letter, no leading, trailing or doubled hyphen.
    package static func snapNameRefusal(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (2...40).contains(bytes.count) else { return "snap name must be 2-40 characters" }
        guard bytes.allSatisfy({ ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") }) else {
            return "snap name may only contain a-z, 0-9 and -"
        }
        guard bytes.contains(where: ASCII.isLowercaseLetter) else { return "snap name needs a letter" }
        let hyphen = UInt8(ascii: "-")
        guard bytes.first != hyphen, bytes.last != hyphen else { return "snap name must not start or end with -" }
        guard !zip(bytes, bytes.dropFirst()).contains(where: { $0 == hyphen && $1 == hyphen }) else {
            return "snap name must not contain --"
        }
        return nil
    }

    /// The shared reverse-DNS shape. Splits keeping empty pieces: `a..b`,
    /// `.a` and `a.` must be refused, not silently repaired.
    private static func reverseDNSRefusal(_ id: String, segmentStart: (UInt8) -> Bool,
                                          startRule: String) -> String? {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return "id must be 1-\(maxBytes) bytes" }
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return "id must be reverse-DNS (at least two .-separated parts)" }
        for segment in segments {
            guard let first = segment.first else { return "id has an empty part" }
            guard segment.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
            else { return "id may only contain A-Z, a-z, 0-9, _, - and ." }
            guard segmentStart(first) else { return "each part of the id must \(startRule)" }
        }
        return nil
    }
}
