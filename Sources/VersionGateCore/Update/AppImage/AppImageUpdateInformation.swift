/// Where an AppImage says its updates are (AppImage type 2, the
/// `.upd_info` section: text, NUL-padded to 1024 bytes). The two zsync
/// transports are read; anything else is refused by name.
///
///     zsync|<http(s) URL of the .zsync file>
///     gh-releases-zsync|<user>|<repo>|<tag or latest>|<file name glob of the .zsync>
package enum AppImageUpdateInformation: Equatable, Sendable {
    case zsync(url: String)
    case gitHubReleases(user: String, repository: String, tag: String, filenameGlob: String)

    package static let sectionName = ".upd_info"
    package static let maxBytes = 1024

    package init(parsing bytes: [UInt8]) throws(AppImageUpdateInformationError) {
        guard bytes.count <= Self.maxBytes else { throw .tooLong(bytes: bytes.count) }
        // The text ends at the first NUL; only padding may follow it.
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        guard bytes[end...].allSatisfy({ $0 == 0 }) else { throw .textAfterPadding }
        let text = bytes[..<end]
        guard !text.isEmpty else { throw .empty }
        guard let string = String(validating: text, as: UTF8.self) else { throw .notUTF8 }
        // C0, DEL, C1, bidi controls and separators: none belongs in a URL or a name.
        guard !string.unicodeScalars.contains(where: { ControlScalar($0) != nil }) else { throw .controlCharacter }
        let fields = string.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let transport = fields[0]
        let expected: Int
        switch transport {
        case "zsync": expected = 2
        case "gh-releases-zsync": expected = 5
        default: throw .unknownTransport(transport)
        }
        guard fields.count == expected else { throw .fieldCount(transport: transport, expected: expected, got: fields.count) }
        if let empty = fields.firstIndex(where: \.isEmpty) { throw .emptyField(transport: transport, index: empty) }
        if transport == "zsync" {
            let url = fields[1]
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), !url.contains(" ") else { throw .badURL(url) }
            self = .zsync(url: url)
            return
        }
        // GitHub's own alphabet for account and repository names.
        for name in fields[1...2] where !name.utf8.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F }) {
            throw .badName(name)
        }
        self = .gitHubReleases(user: fields[1], repository: fields[2], tag: fields[3], filenameGlob: fields[4])
    }

    /// The update information of the AppImage read through `read` (see
    /// ELFSection.find); nil when it has no `.upd_info` section.
    package static func read(fileSize: UInt64, _ read: (UInt64, Int) -> [UInt8]?) throws(AppImageUpdateInformationError) -> Self? {
        let section: ELFSection?
        do throws(ELFError) { section = try ELFSection.find(sectionName, fileSize: fileSize, read: read) } catch { throw .elf(error) }
        guard let section else { return nil }
        guard section.size <= UInt64(maxBytes) else { throw .tooLong(bytes: Int(clamping: section.size)) }
        guard let bytes = read(section.offset, Int(section.size)), bytes.count == Int(section.size) else {
            throw .elf(.unreadable(offset: section.offset))
        }
        return try Self(parsing: bytes)
    }
}

package enum AppImageUpdateInformationError: Error, Equatable, Sendable {
    case tooLong(bytes: Int)
    case textAfterPadding
    case empty
    case controlCharacter
    case notUTF8
    case unknownTransport(String)
    case fieldCount(transport: String, expected: Int, got: Int)
    case emptyField(transport: String, index: Int)
    case badURL(String)
    case badName(String)
    case elf(ELFError)

    package var message: String {
        switch self {
        case .tooLong(let bytes): return "update information of \(bytes) bytes is over \(AppImageUpdateInformation.maxBytes)"
        case .textAfterPadding: return "update information has text after its NUL padding"
        case .empty: return "update information is empty"
        case .controlCharacter: return "update information holds a control character"
        case .notUTF8: return "update information is not UTF-8"
        case .unknownTransport(let name):
            return "update information: unknown transport '\(name)' (zsync and gh-releases-zsync are read)"
        case .fieldCount(let transport, let expected, let got):
            return "update information: \(transport) takes \(expected) '|'-separated fields, not \(got)"
        case .emptyField(let transport, let index): return "update information: \(transport) field \(index + 1) is empty"
        case .badURL(let url): return "update information: '\(url)' is not an http(s) URL"
        case .badName(let name): return "update information: '\(name)' is not a GitHub user or repository name"
        case .elf(let error): return error.message
        }
    }
}
