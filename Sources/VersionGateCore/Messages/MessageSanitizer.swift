/// Cleans text that came from the remote config before a launcher shows it
/// (docs/design.md, "Messages").
package enum MessageSanitizer {
    /// Longest result, in bytes of UTF-8.
    package static let maxBytes = 1024

    /// Removes control characters but "\n" (C0, DEL, C1: so "\r\n" becomes
    /// "\n", tabs go) and bidi overrides/isolates; trims White_Space at both
    /// ends; keeps whole Characters up to `maxBytes`. Nil when nothing is left.
    package static func sanitize(_ text: String) -> String? { sanitize(text, maxBytes: maxBytes) }

    /// Release notes (`release_notes`, `release_notes_<lang>`): the same
    /// rules, line breaks kept, at most 4 KiB and 40 lines (a prompt, not a
    /// changelog page).
    package static let releaseNotesMaxBytes = 4096
    package static let releaseNotesMaxLines = 40

    package static func releaseNotes(_ text: String) -> String? {
        guard let clean = sanitize(text, maxBytes: releaseNotesMaxBytes) else { return nil }
        let lines = clean.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > releaseNotesMaxLines else { return clean }
        let kept = trimmed(lines.prefix(releaseNotesMaxLines).joined(separator: "\n")[...])
        return kept.isEmpty ? nil : kept
    }

    private static func sanitize(_ text: String, maxBytes: Int) -> String? {
        if isCleanASCII(text, maxBytes: maxBytes) { return text }
        // A Swift String is valid Unicode already; bytes were checked when decoded.
        let kept = trimmed(String(String.UnicodeScalarView(text.unicodeScalars.filter { !removes($0) }))[...])
        var length = 0
        let cut = kept.prefix { character in
            length += character.utf8.count
            return length <= maxBytes
        }
        let result = trimmed(cut)  // the cut may end in a blank
        return result.isEmpty ? nil : result
    }

    /// The common case, decided over bytes: printable ASCII and "\n" only,
    /// no blank at either end, short enough. Such text is its own result.
    private static func isCleanASCII(_ text: String, maxBytes: Int) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= maxBytes, let first = utf8.first, let last = utf8.last,
              first != 0x20, first != 0x0A, last != 0x20, last != 0x0A else { return false }
        return utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }
    }

    /// Removed from a message: the controls but "\n", and bidi controls.
    /// GateLint counts these too, to say what would go.
    package static func removes(_ scalar: Unicode.Scalar) -> Bool {
        switch ControlScalar(scalar) {
        case .control?: scalar != "\n"
        case .bidiControl?: true
        case .bidiMark?, .separator?, nil: false
        }
    }

    /// Without leading and trailing White_Space (space, "\n", NBSP, U+3000…),
    /// so a message of blanks counts as empty.
    private static func trimmed(_ text: Substring) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
