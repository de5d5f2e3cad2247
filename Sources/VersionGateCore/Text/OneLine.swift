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

    /// Every class of the table becomes a space.
    private static func safe(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ControlScalar(scalar) == nil ? scalar : " "
    }
}
