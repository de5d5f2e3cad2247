/// Where a gate document lives, as the "source" option spells it: a plain
/// path, or a `file://` URL (`file:///abs/path`, `file://localhost/abs/path`)
/// whose path is percent-decoded.
package enum SourceLocation {
    package static func path(from value: String) throws(GateFailure) -> String {
        guard !value.isEmpty else { throw .invalidArgument("source is empty") }
        guard !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .invalidArgument("source contains control characters")
        }
        let lower = value.lowercased()
        if lower.hasPrefix("file://") {
            var rest = Substring(value.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            guard rest.hasPrefix("/") else {
                throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): a file URL must be file:///absolute/path")
            }
            guard let path = PercentEncoding.decoded(rest), !path.utf8.contains(0) else {
                throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): bad percent-encoding")
            }
            return path
        }
        // "javascript:…", "data:…", "ftp://…": a URL we do not read, not a relative file name.
        let scheme = value.prefix { $0 != ":" && $0 != "/" }
        if scheme.count < value.count, value[scheme.endIndex] == ":", let first = scheme.utf8.first, ASCII.isLetter(first),
           scheme.utf8.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || "+.-".utf8.contains($0) }) {
            throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): unsupported scheme (use a path, file://, https:// or firebase://)")
        }
        return value
    }
}
