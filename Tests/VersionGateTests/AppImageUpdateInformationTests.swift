import Foundation
import XCTest
@testable import VersionGateCore

/// An AppImage's update information (issue #42): the `.upd_info` text, and
/// the ELF reader that finds it in a tiny ELF made by gcc and objcopy
/// (Tests/Fixtures/appimage), in both classes and, swapped, both byte orders.
/// Malformed headers are refused with a reason, never a trap.
final class AppImageUpdateInformationTests: XCTestCase {
    private let directory = TestFiles.fixtures.appendingPathComponent("appimage")

    private func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    private func padded(_ text: String) -> [UInt8] {
        Array(text.utf8) + [UInt8](repeating: 0, count: max(0, 1024 - text.utf8.count))
    }

    func testUpdateInformationForms() throws {
        let rows: [(String, AppImageUpdateInformation)] = [
            ("zsync|https://example.org/a.AppImage.zsync", .zsync(url: "https://example.org/a.AppImage.zsync")),
            ("zsync|http://example.org/a.zsync", .zsync(url: "http://example.org/a.zsync")),
            ("gh-releases-zsync|probono|AppImages|latest|Subsurface-*x86_64.AppImage.zsync",
             .gitHubReleases(user: "probono", repository: "AppImages", tag: "latest", filenameGlob: "Subsurface-*x86_64.AppImage.zsync")),
            ("gh-releases-zsync|a-b_c.d|r.e-p_o|v1.2/rc|*.zsync",
             .gitHubReleases(user: "a-b_c.d", repository: "r.e-p_o", tag: "v1.2/rc", filenameGlob: "*.zsync")),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(try AppImageUpdateInformation(parsing: padded(text)), expected, text)
            XCTAssertEqual(try AppImageUpdateInformation(parsing: Array(text.utf8)), expected, "\(text), unpadded")
        }
    }

    func testMalformedUpdateInformationIsRefused() {
        let rows: [(String, [UInt8], AppImageUpdateInformationError)] = [
            ("all NULs", padded(""), .empty),
            ("nothing", [], .empty),
            ("over 1024 bytes", Array(("zsync|https://e.org/" + String(repeating: "a", count: 1010)).utf8), .tooLong(bytes: 1030)),
            ("text after the padding", padded("zsync|https://e.org/a") + [0x41], .tooLong(bytes: 1025)),
            ("text after a NUL", Array("zsync|https://e.org/a\0b".utf8), .textAfterPadding),
            ("newline", padded("zsync|https://e.org/a\n"), .controlCharacter),
            ("tab", padded("gh-releases-zsync|a|b|\tlatest|*.zsync"), .controlCharacter),
            ("DEL", padded("zsync|https://e.org/\u{7F}"), .controlCharacter),
            ("C1 control (fuzzing found it echoed)", padded("\u{80}{"), .controlCharacter),
            ("bidi override", padded("zsync|https://e.org/\u{202E}a"), .controlCharacter),
            ("line separator", padded("zsync|https://e.org/\u{2028}a"), .controlCharacter),
            ("not UTF-8", [0x7A, 0x73, 0x79, 0x6E, 0x63, 0x7C, 0xFF], .notUTF8),
            ("unknown transport", padded("bintray-zsync|a|b|c|d"), .unknownTransport("bintray-zsync")),
            ("transport case", padded("ZSYNC|https://e.org/a"), .unknownTransport("ZSYNC")),
            ("no separator", padded("https://e.org/a.zsync"), .unknownTransport("https://e.org/a.zsync")),
            ("zsync with 3 fields", padded("zsync|https://e.org/a|b"), .fieldCount(transport: "zsync", expected: 2, got: 3)),
            ("zsync with 1 field", padded("zsync"), .fieldCount(transport: "zsync", expected: 2, got: 1)),
            ("gh with 4 fields", padded("gh-releases-zsync|a|b|latest"), .fieldCount(transport: "gh-releases-zsync", expected: 5, got: 4)),
            ("gh with 6 fields", padded("gh-releases-zsync|a|b|latest|x|y"), .fieldCount(transport: "gh-releases-zsync", expected: 5, got: 6)),
            ("empty URL", padded("zsync|"), .emptyField(transport: "zsync", index: 1)),
            ("empty tag", padded("gh-releases-zsync|a|b||*.zsync"), .emptyField(transport: "gh-releases-zsync", index: 3)),
            ("empty glob", padded("gh-releases-zsync|a|b|latest|"), .emptyField(transport: "gh-releases-zsync", index: 4)),
            ("empty transport", padded("|https://e.org/a"), .unknownTransport("")),
            ("ftp URL", padded("zsync|ftp://e.org/a.zsync"), .badURL("ftp://e.org/a.zsync")),
            ("relative URL", padded("zsync|a.zsync"), .badURL("a.zsync")),
            ("space in URL", padded("zsync|https://e.org/a b"), .badURL("https://e.org/a b")),
            ("slash in user", padded("gh-releases-zsync|a/b|c|latest|*.zsync"), .badName("a/b")),
            ("space in repo", padded("gh-releases-zsync|a|c d|latest|*.zsync"), .badName("c d")),
        ]
        for (name, input, expected) in rows {
            XCTAssertThrowsError(try AppImageUpdateInformation(parsing: input), name) {
                XCTAssertEqual($0 as? AppImageUpdateInformationError, expected, name)
                XCTAssertFalse(($0 as? AppImageUpdateInformationError)?.message.isEmpty ?? true, name)
            }
        }
    }

    // MARK: the ELF reader

    private func reader(_ file: [UInt8]) -> (UInt64, Int) -> [UInt8]? {
        { offset, count in
            guard count >= 0, offset <= UInt64(file.count), count <= file.count - Int(offset) else { return nil }
            return Array(file[Int(offset)..<(Int(offset) + count)])
        }
    }

    private func find(_ file: [UInt8], _ name: String = ".upd_info") throws -> ELFSection? {
        try ELFSection.find(name, fileSize: UInt64(file.count), read: reader(file))
    }

    func testFindsTheSectionInEveryClassAndByteOrder() throws {
        let expected = try bytes("upd_info.bin")
        for name in ["tiny-upd-elf64", "tiny-upd-elf32"] {
            for bigEndian in [false, true] {
                let file = bigEndian ? try swappedToBigEndian(bytes(name)) : try bytes(name)
                let label = "\(name)\(bigEndian ? ", big endian" : "")"
                let section = try XCTUnwrap(try find(file), label)
                XCTAssertEqual(section, ELFSection(offset: 0x113, size: 1024), label)
                XCTAssertEqual(Array(file[0x113..<(0x113 + 1024)]), expected, label)
                XCTAssertEqual(try AppImageUpdateInformation.read(fileSize: UInt64(file.count), reader(file)),
                               .zsync(url: "https://example.org/app/Tiny-latest-x86_64.AppImage.zsync"), label)
                XCTAssertNil(try find(file, ".upd_inf"), label)
                XCTAssertNil(try find(file, ".upd_info2"), label)
                XCTAssertNotNil(try find(file, ".shstrtab"), label)
            }
        }
    }

    /// The fixture with `edit` applied at a field of its ELF64 header.
    private func elf64(_ edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
        var file = try bytes("tiny-upd-elf64")
        edit(&file)
        return file
    }

    private func put(_ file: inout [UInt8], _ at: Int, _ width: Int, _ value: UInt64) {
        for k in 0..<width { file[at + k] = UInt8(truncatingIfNeeded: value >> UInt64(8 * k)) }
    }

    private func field(_ file: [UInt8], _ at: Int, _ width: Int) -> Int {
        (0..<width).reversed().reduce(0) { $0 << 8 | Int(file[at + $1]) }
    }

    func testMalformedELFIsRefused() throws {
        let file = try bytes("tiny-upd-elf64")
        let shoff = field(file, 0x28, 8), shnum = field(file, 0x3C, 2), shstrndx = field(file, 0x3E, 2)
        let updInfo = shoff + 4 * 64, names = shoff + shstrndx * 64
        let rows: [(String, [UInt8], ELFError)] = [
            ("empty", [], .notELF),
            ("51 bytes", Array(file.prefix(51)), .notELF),
            ("bad magic", try elf64 { $0[1] = UInt8(ascii: "X") }, .notELF),
            ("class 3", try elf64 { $0[4] = 3 }, .unsupported("ELF class 3")),
            ("encoding 0", try elf64 { $0[5] = 0 }, .unsupported("ELF data encoding 0")),
            ("ELF64 cut inside its header", Array(file.prefix(60)), .notELF),
            ("section table past the end", try elf64 { put(&$0, 0x28, 8, UInt64(file.count)) }, .outsideFile("the section header table")),
            ("section table offset overflows", try elf64 { put(&$0, 0x28, 8, .max) }, .outsideFile("the section header table")),
            ("section table cut short", Array(file.prefix(shoff + shnum * 64 - 1)), .outsideFile("the section header table")),
            ("entries too small", try elf64 { put(&$0, 0x3A, 2, 63) }, .malformed("section header entries of 63 bytes")),
            ("name table index out of range", try elf64 { put(&$0, 0x3E, 2, UInt64(shnum)) },
             .malformed("section name table index \(shnum) of \(shnum) sections")),
            ("extended numbering", try elf64 { put(&$0, 0x3E, 2, 0xFFFF) }, .unsupported("extended section numbering")),
            ("no sections but a table", try elf64 { put(&$0, 0x3C, 2, 0) }, .unsupported("extended section numbering")),
            ("name table past the end", try elf64 { put(&$0, names + 24, 8, UInt64(file.count)) }, .outsideFile("the section name table")),
            ("name table size overflows", try elf64 { put(&$0, names + 32, 8, .max) }, .malformed("a section name table over 1048576 bytes")),
            ("name table too large", try elf64 { put(&$0, names + 32, 8, 1 << 21) }, .malformed("a section name table over 1048576 bytes")),
            ("section past the end", try elf64 { put(&$0, updInfo + 24, 8, UInt64(file.count - 1000)) }, .outsideFile("section .upd_info")),
            ("section offset + size overflow", try elf64 { put(&$0, updInfo + 32, 8, .max) }, .outsideFile("section .upd_info")),
            ("section is NOBITS", try elf64 { put(&$0, updInfo + 4, 4, 8) }, .malformed("section .upd_info has no bytes in the file")),
        ]
        // ELF32's fields, at their own offsets and widths.
        let file32 = try bytes("tiny-upd-elf32")
        let shoff32 = field(file32, 0x20, 4), updInfo32 = shoff32 + 4 * 40
        var edited32: [(String, [UInt8], ELFError)] = []
        func row32(_ name: String, _ expected: ELFError, _ edit: (inout [UInt8]) -> Void) {
            var copy = file32
            edit(&copy)
            edited32.append((name, copy, expected))
        }
        row32("ELF32 entries too small", .malformed("section header entries of 39 bytes")) { put(&$0, 0x2E, 2, 39) }
        row32("ELF32 section table past the end", .outsideFile("the section header table")) { put(&$0, 0x20, 4, UInt64(file32.count)) }
        row32("ELF32 section past the end", .outsideFile("section .upd_info")) { put(&$0, updInfo32 + 16, 4, 0xFFFF_FFFF) }
        row32("ELF32 section too long", .outsideFile("section .upd_info")) { put(&$0, updInfo32 + 20, 4, UInt64(file32.count)) }
        row32("ELF32 cut inside its header", .notELF) { $0 = Array($0.prefix(51)) }
        for (name, input, expected) in rows + edited32 {
            XCTAssertThrowsError(try find(input), name) {
                XCTAssertEqual($0 as? ELFError, expected, name)
                XCTAssertFalse(($0 as? ELFError)?.message.isEmpty ?? true, name)
            }
        }
        // A name offset outside the name table is no match, not an error.
        XCTAssertNil(try find(try elf64 { put(&$0, updInfo, 4, 1 << 30) }))
        // No section header table: no section.
        XCTAssertNil(try find(try elf64 { put(&$0, 0x28, 8, 0) }))
        XCTAssertThrowsError(try ELFSection.find(".upd_info", fileSize: UInt64(file.count)) { _, _ in nil }) {
            XCTAssertEqual($0 as? ELFError, .notELF)
        }
        XCTAssertThrowsError(try ELFSection.find(".upd_info", fileSize: UInt64(file.count)) { offset, count in
            offset == 0 ? self.reader(file)(offset, count) : nil
        }) {
            XCTAssertEqual($0 as? ELFError, .unreadable(offset: UInt64(shoff)))
        }
    }

    func testOversizedAndMalformedSectionsAreRefused() throws {
        let file = try bytes("tiny-upd-elf64")
        let updInfo = field(file, 0x28, 8) + 4 * 64
        var big = file
        put(&big, updInfo + 32, 8, 1025)
        XCTAssertThrowsError(try AppImageUpdateInformation.read(fileSize: UInt64(big.count), reader(big))) {
            XCTAssertEqual($0 as? AppImageUpdateInformationError, .tooLong(bytes: 1025))
        }
        var garbled = file
        garbled[0x113 + 5] = UInt8(ascii: "!")
        XCTAssertThrowsError(try AppImageUpdateInformation.read(fileSize: UInt64(garbled.count), reader(garbled))) {
            XCTAssertEqual($0 as? AppImageUpdateInformationError, .unknownTransport("zsync!https://example.org/app/Tiny-latest-x86_64.AppImage.zsync"))
        }
        XCTAssertThrowsError(try AppImageUpdateInformation.read(fileSize: 3, reader(Array(file.prefix(3))))) {
            XCTAssertEqual($0 as? AppImageUpdateInformationError, .elf(.notELF))
        }
        var none = file
        put(&none, 0x28, 8, 0)
        XCTAssertNil(try AppImageUpdateInformation.read(fileSize: UInt64(none.count), reader(none)))
    }

    /// A little-endian ELF made big-endian: the identification byte and every
    /// field of the file header and the section headers, reversed.
    private func swappedToBigEndian(_ file: [UInt8]) -> [UInt8] {
        var out = file
        let wide = file[4] == 2
        out[5] = 2
        func swap(_ at: Int, _ width: Int) { out[at..<(at + width)] = ArraySlice(file[at..<(at + width)].reversed()) }
        let header: [(Int, Int)] = wide
            ? [(0x10, 2), (0x12, 2), (0x14, 4), (0x18, 8), (0x20, 8), (0x28, 8), (0x30, 4), (0x34, 2), (0x36, 2), (0x38, 2), (0x3A, 2), (0x3C, 2), (0x3E, 2)]
            : [(0x10, 2), (0x12, 2), (0x14, 4), (0x18, 4), (0x1C, 4), (0x20, 4), (0x24, 4), (0x28, 2), (0x2A, 2), (0x2C, 2), (0x2E, 2), (0x30, 2), (0x32, 2)]
        for (at, width) in header { swap(at, width) }
        let shoff = wide ? field(file, 0x28, 8) : field(file, 0x20, 4)
        let entrySize = wide ? 64 : 40, count = field(file, wide ? 0x3C : 0x30, 2)
        let widths = wide ? [4, 4, 8, 8, 8, 8, 4, 4, 8, 8] : [Int](repeating: 4, count: 10)
        for index in 0..<count {
            var at = shoff + index * entrySize
            for width in widths {
                swap(at, width)
                at += width
            }
        }
        return out
    }
}
