/// The one table of code points that can break, forge or reorder displayed
/// text. Each user picks the classes it acts on: the message sanitizer (and
/// the lint that predicts it) removes controls and bidi controls, the
/// one-line quoting replaces every class.
package enum ControlScalar: Equatable {
    /// C0, DEL, C1 (tabs and line breaks too).
    case control
    /// Bidi embeddings, overrides (U+202A-202E) and isolates (U+2066-2069).
    case bidiControl
    /// Bidi marks: LRM, RLM.
    case bidiMark
    /// Line and paragraph separators.
    case separator

    /// Nil for every other code point.
    package init?(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: self = .control
        case 0x202A...0x202E, 0x2066...0x2069: self = .bidiControl
        case 0x200E, 0x200F: self = .bidiMark
        case 0x2028, 0x2029: self = .separator
        default: return nil
        }
    }
}
