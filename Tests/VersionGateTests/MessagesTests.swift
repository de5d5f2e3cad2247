import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

final class MessagesTests: XCTestCase {
    func testEachLanguageResolvesFromItsForms() {
        let rows: [(String, [String], UInt)] = [
            ("en", ["en", "en_US", "en_GB.UTF-8", "en-US", "EN_us", "C", "C.UTF-8", "POSIX", "xx_XX.UTF-8", "x", "_", ".UTF-8", "@euro"], #line),
            ("pt-BR", ["pt_BR.UTF-8@euro", "pt_BR", "pt-BR", "PT_br.utf8"], #line),
            ("pt", ["pt", "pt_PT.UTF-8"], #line),
            ("ja", ["ja_JP.UTF-8", "ja"], #line),
            ("zh-TW", ["zh-Hant-TW", "zh_TW.UTF-8"], #line),
            ("es", ["es", "es_ES.UTF-8", "es_MX", "es-419", "es_ES@euro"], #line),
            ("de", ["de", "de_DE", "de_DE.UTF-8", "de_AT.ISO-8859-1@euro", "de-CH"], #line),
            ("fr", ["fr", "fr_FR.UTF-8", "fr_CA", "fr-BE", "fr_FR@euro"], #line),
        ]
        for (tag, forms, line) in rows {
            for form in forms {
                XCTAssertEqual(LocaleChoice.resolve(option: form, environment: [:]), tag, "option \(form)", line: line)
                XCTAssertEqual(LocaleChoice.resolve(option: nil, environment: ["LANG": form]), tag, "LANG=\(form)", line: line)
            }
        }
    }

    /// docs/design.md, "Messages": option > LANGUAGE (unless the locale is C) > LC_ALL > LC_MESSAGES
    /// > LANG; empty values are skipped, an unknown first locale is not (POSIX):
    /// it falls back to English. More rows: LanguagesTests.testSelectionChain.
    func testPrecedence() {
        let all = ["LC_ALL": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"]
        let rows: [(String?, [String: String], String, UInt)] = [
            ("pt_BR", all, "pt-BR", #line),
            (nil, all, "de", #line),
            ("", all, "de", #line),
            (nil, ["LC_ALL": "", "LC_MESSAGES": "fr_FR", "LANG": "es_ES"], "fr", #line),
            (nil, ["LC_MESSAGES": "fr_FR", "LANG": "es_ES"], "fr", #line),
            (nil, ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "es_ES"], "es", #line),
            (nil, ["LC_CTYPE": "de_DE", "LANGUAGE": "fr", "LANG": "pt_BR"], "fr", #line),
            (nil, ["LC_CTYPE": "de_DE", "LANG": "pt_BR"], "pt-BR", #line),
            (nil, ["LC_ALL": "C", "LANG": "de_DE"], "en", #line),
            ("ja", all, "ja", #line),
            ("xx", all, "en", #line),
            (nil, ["LC_ALL": "", "LC_MESSAGES": "", "LANG": ""], "en", #line),
            (nil, [:], "en", #line),
        ]
        for (option, environment, tag, line) in rows {
            XCTAssertEqual(LocaleChoice.resolve(option: option, environment: environment), tag, line: line)
        }
    }

    func testCatalogs() {
        let rows: [(String, String, String, UInt)] = [
            ("en", "Update required", "Later", #line),
            ("pt-BR", "Atualização necessária", "Mais tarde", #line),
            ("es", "Actualización necesaria", "Más tarde", #line),
            ("de", "Update erforderlich", "Später", #line),
            ("fr", "Mise à jour requise", "Plus tard", #line),
            ("xx", "Update required", "Later", #line),
            ("", "Update required", "Later", #line),
        ]
        for (tag, mandatoryTitle, laterLabel, line) in rows {
            let catalog = MessageCatalog.forLanguage(tag)
            XCTAssertEqual(catalog.mandatoryTitle, mandatoryTitle, line: line)
            XCTAssertEqual(catalog.laterLabel, laterLabel, line: line)
        }
        XCTAssertEqual(MessageCatalog.forLanguage("en"), MessageCatalog(
            language: "en", mandatoryTitle: "Update required",
            mandatoryMessage: "This version is no longer supported. Please update to continue.",
            mandatoryUnsupportedMessage: "This version is no longer supported, and its update cannot be installed on this system.",
            optionalTitle: "Update available", optionalMessage: "A new version is available.",
            updateLabel: "Update", laterLabel: "Later", skipLabel: "Skip this version",
            requiredFromMessage: "This version will stop working on {date}. Please update before then.",
            datePattern: "{month} {day}, {year}",
            months: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                     "November", "December"], firstDay: "1",
            channelMessage: "An update is required, but it is not yet available for this system. "
                + "You may use this version until it is.", helpPageLabel: "Open help page"))
        XCTAssertEqual(MessageCatalog.forLanguage("de").requiredFrom(year: 2027, month: 3, day: 1),
                       "Diese Version funktioniert ab dem 1. März 2027 nicht mehr. Bitte aktualisieren Sie vorher.")
        XCTAssertEqual(MessageCatalog.forLanguage("en").requiredFrom(year: 2027, month: 12, day: 31),
                       "This version will stop working on December 31, 2027. Please update before then.")
    }

    /// Every catalog is complete, distinct from English, and clean.
    func testCatalogsAreComplete() {
        XCTAssertEqual(MessageCatalog.all.first?.language, "en")
        XCTAssertEqual(Set(MessageCatalog.all.map(\.language)).count, MessageCatalog.all.count)
        for catalog in MessageCatalog.all {
            XCTAssertEqual(MessageCatalog.forLanguage(catalog.language), catalog)
            let texts = [catalog.mandatoryTitle, catalog.mandatoryMessage, catalog.optionalTitle,
                         catalog.optionalMessage, catalog.updateLabel, catalog.laterLabel, catalog.skipLabel]
            for text in texts {
                XCTAssertEqual(MessageSanitizer.sanitize(text), text, "\(catalog.language): \(text)")
            }
            XCTAssertEqual(Set(texts).count, texts.count, catalog.language)
            if catalog.language != "en" {
                XCTAssertNotEqual(catalog.mandatoryMessage, MessageCatalog.english.mandatoryMessage)
                XCTAssertNotEqual(catalog.optionalMessage, MessageCatalog.english.optionalMessage)
            }
        }
    }

    func testSanitizer() {
        let rows: [(String, String?, UInt)] = [
            ("A new version is available.", "A new version is available.", #line),
            ("Nova versão disponível…", "Nova versão disponível…", #line),
            ("line 1\nline 2", "line 1\nline 2", #line),
            ("line 1\r\nline 2\r\n", "line 1\nline 2", #line),
            ("a\rb", "ab", #line),
            ("a\tb\t", "ab", #line),
            ("\u{0}a\u{1}b\u{7}c\u{8}d\u{B}e\u{C}f\u{1B}[31mg\u{1F}h", "abcdef[31mgh", #line),
            ("a\u{7F}b\u{80}c\u{85}d\u{9B}e\u{9F}f", "abcdef", #line),
            ("safe\u{202E}txt.exe", "safetxt.exe", #line),
            ("\u{202A}a\u{202B}b\u{202C}c\u{202D}d\u{2066}e\u{2067}f\u{2068}g\u{2069}h", "abcdefgh", #line),
            ("\u{200F}rtl mark\u{200E}", "\u{200F}rtl mark\u{200E}", #line),  // marks are not overrides
            ("  \n padded \n\n ", "padded", #line),
            ("\u{A0}\u{3000}text\u{2003}", "text", #line),
            ("mid\u{A0}dle", "mid\u{A0}dle", #line),
            ("", nil, #line),
            ("   ", nil, #line),
            (" \n\t\r\n ", nil, #line),
            ("\u{1}\u{2}\u{202E}", nil, #line),
            ("e\u{301} 👍🏽 🇧🇷 👨‍👩‍👧", "e\u{301} 👍🏽 🇧🇷 👨‍👩‍👧", #line),
        ]
        for (input, expected, line) in rows {
            XCTAssertEqual(MessageSanitizer.sanitize(input), expected, input.debugDescription, line: line)
        }
    }

    /// At most 1024 bytes of UTF-8, cut before a Character that would not fit.
    func testSanitizerLength() {
        let a = { (count: Int) in String(repeating: "a", count: count) }
        let rows: [(String, String?, UInt)] = [
            (a(1024), a(1024), #line),
            (a(1025), a(1024), #line),
            (a(1022) + "é", a(1022) + "é", #line),  // exactly 1024
            (a(1023) + "é", a(1023), #line),  // 2 bytes straddle
            (a(1023) + "e\u{301}", a(1023), #line),  // "e" would fit, its accent not
            (a(1021) + "e\u{301}", a(1021) + "e\u{301}", #line),
            (a(1020) + "👍🏽", a(1020), #line),  // 8 bytes, one Character
            (a(1016) + "👍🏽", a(1016) + "👍🏽", #line),
            (a(1017) + "🇧🇷🇧🇷", a(1017), #line),
            (a(1021) + "€x", a(1021) + "€", #line),  // 3 bytes fit, then 1 does not
            (a(1020) + "    tail", a(1020), #line),  // trimmed again after the cut
            ("\u{1}" + a(1024), a(1024), #line),  // removed characters do not count
            ("   " + a(1024), a(1024), #line),  // nor leading blanks
            ("e" + String(repeating: "\u{301}", count: 2000), nil, #line),  // one huge Character
        ]
        for (input, expected, line) in rows {
            let result = MessageSanitizer.sanitize(input)
            XCTAssertEqual(result, expected, line: line)
            XCTAssertLessThanOrEqual(result?.utf8.count ?? 0, 1024, line: line)
        }
    }

    /// Release notes: the message rules with line breaks kept, at most 4 KiB and 40 lines.
    func testReleaseNotes() {
        XCTAssertEqual(MessageSanitizer.releaseNotes("  Faster start-up.\r\n\n- Fixed\tprinting\u{202E}\n  "),
                       "Faster start-up.\n\n- Fixedprinting")
        let lines = (1...50).map { "line \($0)" }
        XCTAssertEqual(MessageSanitizer.releaseNotes(lines.joined(separator: "\n")),
                       lines.prefix(40).joined(separator: "\n"), "cut after 40 lines")
        XCTAssertEqual(MessageSanitizer.releaseNotes((lines.prefix(39) + ["", "", "x"]).joined(separator: "\n")),
                       lines.prefix(39).joined(separator: "\n"), "and trimmed after the cut")
        let long = String(repeating: "a", count: 5000)
        XCTAssertEqual(MessageSanitizer.releaseNotes(long)?.utf8.count, 4096)
        XCTAssertEqual(MessageSanitizer.sanitize(long)?.utf8.count, 1024, "update_message keeps its own cap")
        XCTAssertNil(MessageSanitizer.releaseNotes(" \n\u{7}\n "))
    }
}
