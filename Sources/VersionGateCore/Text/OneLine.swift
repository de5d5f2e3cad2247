/// Untrusted text (a server's, a file's, a caller's) quoted in a one-line
/// message: the one sanitizer every error message uses. Control characters
/// (C0, DEL, C1: tabs and line breaks too), line and paragraph separators and
/// bidi controls become a space; bytes that are not UTF-8 become U+FFFD. So
/// quoted text can neither break, forge nor reorder a log line.
package enum OneLine {
    /// At most `max` characters, then "…".
    package static func text(_ text: String, max: Int = 64) -> String {
        var out = String.UnicodeScalarView()
        var characters = 0
        for scalar in text.unicodeScalars {
            guard characters < max else {
                out.append("…")
                break
            }
            out.append(safe(scalar))
            characters += 1
        }
        return String(out)
    }

    package static func text(_ bytes: some Collection<UInt8>, max: Int = 64) -> String {
        text(String(decoding: bytes, as: UTF8.self), max: max)
    }

    /// `text` between double quotes.
    package static func quoted(_ value: String, max: Int = 200) -> String {
        "\"" + text(value, max: max) + "\""
    }

    private static func safe(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: " "            // C0, DEL, C1
        case 0x2028, 0x2029: " "                      // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: " "  // bidi marks, embeddings, overrides, isolates
        default: scalar
        }
    }
}
