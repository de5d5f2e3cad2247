/// A snap's store name, and where a program's path names one
/// (docs/design.md, "Updating a snap").
package enum SnapName {
    /// snapd's rule: 1-40 of `a-z`, `0-9` and `-`, at least one letter, no
    /// `-` first, last or twice in a row. Checked bytewise: no Unicode
    /// digit or letter passes.
    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...40).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else {
            return false
        }
        var letter = false
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): letter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "-") where previous != UInt8(ascii: "-"): break
            default: return false
            }
            previous = byte
        }
        return letter
    }

    /// The snap a program's path belongs to: `/snap/bin/NAME` or
    /// `/snap/bin/NAME.APP` (the commands snapd makes, before their link
    /// to /usr/bin/snap is followed), or a file under `/snap/NAME/REV/`;
    /// nil for any other path. A parallel install's `_KEY` is not the
    /// store's name and is dropped.
    package static func owning(programPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[1] == "snap", !parts[2].isEmpty else { return nil }
        let word: Substring
        if parts[2] == "bin" {
            guard parts.count == 4 else { return nil }
            word = parts[3].prefix { $0 != "." }
        } else {
            guard parts.count >= 5, !parts[3].isEmpty else { return nil }
            word = parts[2]
        }
        let name = String(word.prefix { $0 != "_" })
        return isValid(name) ? name : nil
    }
}
