/// A named section of an ELF file (32 or 64 bit, either byte order), found
/// through the section header table (e_shoff, e_shnum, e_shentsize) and
/// the section name string table (e_shstrndx). The file is read through a
/// closure, a few small reads, so a multi-GiB AppImage is never loaded; every
/// offset and size is checked against the file's size before it is read.
package struct ELFSection: Equatable, Sendable {
    package let offset: UInt64
    package let size: UInt64

    /// The section name table is read whole; real ones are a few hundred bytes.
    static let maxNameTableBytes = 1 << 20
    private static let sectionNoBits: UInt64 = 8

    /// The section called `name`, or nil when the file has none. `read`
    /// returns exactly `count` bytes at `offset`, or nil.
    package static func find(_ name: String, fileSize: UInt64,
                             read: (UInt64, Int) -> [UInt8]?) throws(ELFError) -> ELFSection? {
        guard fileSize >= 52, let ident = read(0, 16), ident.count == 16 else { throw .notELF }
        guard ident[0] == 0x7F, ident[1] == UInt8(ascii: "E"), ident[2] == UInt8(ascii: "L"), ident[3] == UInt8(ascii: "F")
        else { throw .notELF }
        let wide: Bool
        switch ident[4] {
        case 1: wide = false
        case 2: wide = true
        default: throw .unsupported("ELF class \(ident[4])")
        }
        let bigEndian: Bool
        switch ident[5] {
        case 1: bigEndian = false
        case 2: bigEndian = true
        default: throw .unsupported("ELF data encoding \(ident[5])")
        }
        let headerSize = wide ? 64 : 52
        guard fileSize >= UInt64(headerSize) else { throw .notELF }
        let header = Fields(bytes: try bytes(read, 0, headerSize), bigEndian: bigEndian)
        let tableOffset = wide ? header.uint(0x28, 8) : header.uint(0x20, 4)
        let entrySize = Int(header.uint(wide ? 0x3A : 0x2E, 2))
        let count = Int(header.uint(wide ? 0x3C : 0x30, 2))
        let namesIndex = Int(header.uint(wide ? 0x3E : 0x32, 2))
        guard tableOffset != 0 else { return nil }  // no section headers at all
        // e_shnum 0 or e_shstrndx SHN_XINDEX mean extended numbering (over 65279 sections).
        guard count != 0, namesIndex != 0xFFFF else { throw .unsupported("extended section numbering") }
        guard entrySize >= (wide ? 64 : 40) else { throw .malformed("section header entries of \(entrySize) bytes") }
        guard namesIndex < count else { throw .malformed("section name table index \(namesIndex) of \(count) sections") }
        // At most 65535 entries of 65535 bytes: no overflow.
        let tableBytes = entrySize * count
        guard tableOffset <= fileSize, UInt64(tableBytes) <= fileSize - tableOffset else {
            throw .outsideFile("the section header table")
        }
        let table = Fields(bytes: try bytes(read, tableOffset, tableBytes), bigEndian: bigEndian)

        func section(_ index: Int) -> (name: UInt64, type: UInt64, offset: UInt64, size: UInt64) {
            let at = index * entrySize
            return wide
                ? (table.uint(at, 4), table.uint(at + 4, 4), table.uint(at + 24, 8), table.uint(at + 32, 8))
                : (table.uint(at, 4), table.uint(at + 4, 4), table.uint(at + 16, 4), table.uint(at + 20, 4))
        }
        let namesSection = section(namesIndex)
        guard namesSection.size <= UInt64(maxNameTableBytes) else { throw .malformed("a section name table over \(maxNameTableBytes) bytes") }
        guard namesSection.offset <= fileSize, namesSection.size <= fileSize - namesSection.offset else {
            throw .outsideFile("the section name table")
        }
        let names = try bytes(read, namesSection.offset, Int(namesSection.size))
        let wanted = Array(name.utf8)
        for index in 0..<count {
            let entry = section(index)
            guard entry.name < UInt64(names.count) else { continue }
            let start = Int(entry.name)
            guard names.count - start > wanted.count, names[start..<(start + wanted.count)].elementsEqual(wanted),
                  names[start + wanted.count] == 0 else { continue }
            guard entry.type != sectionNoBits else { throw .malformed("section \(name) has no bytes in the file") }
            guard entry.offset <= fileSize, entry.size <= fileSize - entry.offset else { throw .outsideFile("section \(name)") }
            return ELFSection(offset: entry.offset, size: entry.size)
        }
        return nil
    }

    private static func bytes(_ read: (UInt64, Int) -> [UInt8]?, _ offset: UInt64, _ count: Int) throws(ELFError) -> [UInt8] {
        guard let bytes = read(offset, count), bytes.count == count else { throw .unreadable(offset: offset) }
        return bytes
    }
}

/// Fixed-width unsigned fields of a header, in the file's byte order; the
/// callers' offsets lie inside `bytes` (each read was as long as asked).
private struct Fields {
    let bytes: [UInt8]
    let bigEndian: Bool

    func uint(_ at: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for k in 0..<width {
            let byte = UInt64(bytes[bigEndian ? at + k : at + width - 1 - k])
            value = value << 8 | byte
        }
        return value
    }
}

/// Why a file's section could not be found.
package enum ELFError: Error, Equatable, Sendable {
    case notELF
    case unsupported(String)
    case malformed(String)
    case outsideFile(String)
    case unreadable(offset: UInt64)

    package var message: String {
        switch self {
        case .notELF: return "not an ELF file"
        case .unsupported(let what): return "ELF file: \(what) is not supported"
        case .malformed(let what): return "ELF file: \(what)"
        case .outsideFile(let what): return "ELF file: \(what) lies outside the file"
        case .unreadable(let offset): return "ELF file: could not be read at byte \(offset)"
        }
    }
}
