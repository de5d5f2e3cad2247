/// A URL reference resolved against the URL it was found in (RFC 3986,
/// 5.2, for the forms a .zsync file's `URL:` takes): absolute as it is,
/// `//host/…` with the base's scheme, `/path` on the base's origin,
/// anything else beside the base's last path segment. The result still
/// goes through TransportURL's rules before it is fetched.
package enum RelativeURL {
    package static func resolve(_ reference: String, against base: String) -> String {
        let ref = Array(reference.utf8)
        if contains(ref, "://") { return reference }
        var url = Array(base.utf8)
        // The base without its query and fragment.
        if let end = url.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { url.removeSubrange(end...) }
        let authority = index(of: "://", in: url).map { $0 + 3 } ?? 0
        if ref.starts(with: "//".utf8) { return String(decoding: url[..<max(0, authority - 3)], as: UTF8.self) + ":" + reference }
        let path = url[authority...].firstIndex(of: UInt8(ascii: "/")) ?? url.endIndex
        if ref.first == UInt8(ascii: "/") { return String(decoding: url[..<path], as: UTF8.self) + reference }
        let directory = url[path...].lastIndex(of: UInt8(ascii: "/")).map { url[...$0] } ?? url[...] + Array("/".utf8)
        return String(decoding: directory, as: UTF8.self) + reference
    }

    private static func contains(_ bytes: [UInt8], _ needle: String) -> Bool { index(of: needle, in: bytes) != nil }

    private static func index(of needle: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
