import XCTest
@testable import VersionGateCore
@testable import VersionGateSystem

/// The catalogs made from po/ (issue 16) and the gettext-style choice
/// among them. That the catalog matches the .po files, and that msgfmt
/// finds them clean, is Tests/python/test_languages.py.
final class LanguagesTests: XCTestCase {
    /// Where a translation is rightly the English word.
    static let sameAsEnglish: Set<String> = ["nl button.later", "af button.later", "fil date.pattern"]

    func testTheRequiredLanguagesShip() {
        let tags = Set(MessageCatalog.all.map(\.language))
        XCTAssertGreaterThanOrEqual(tags.count, 51)  // 50 besides English
        let required = ["ar", "he", "fa", "zh-CN", "zh-TW", "ja", "ko", "hi", "bn", "ta", "pt-BR", "pt", "sr",
                        "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "ga", "hr", "hu", "it", "lt", "lv",
                        "mt", "nl", "pl", "ro", "sk", "sl", "sv", "en"]
        XCTAssertEqual(required.filter { !tags.contains($0) }, [])
    }

    func testEveryStringOfEveryLanguage() {
        let english = MessageCatalog.english
        for catalog in MessageCatalog.all {
            let tag = catalog.language
            XCTAssertEqual(MessageCatalog.forLanguage(tag), catalog, tag)
            let prompt = [("mandatory.title", catalog.mandatoryTitle, english.mandatoryTitle),
                          ("mandatory.message", catalog.mandatoryMessage, english.mandatoryMessage),
                          ("optional.title", catalog.optionalTitle, english.optionalTitle),
                          ("optional.message", catalog.optionalMessage, english.optionalMessage),
                          ("button.update", catalog.updateLabel, english.updateLabel),
                          ("button.later", catalog.laterLabel, english.laterLabel),
                          ("button.skip", catalog.skipLabel, english.skipLabel)]
            let all = prompt + [("grace.message", catalog.requiredFromMessage, english.requiredFromMessage),
                                ("date.pattern", catalog.datePattern, english.datePattern)]
                + zip(catalog.months, english.months).enumerated().map { ("month.\($0 + 1)", $1.0, $1.1) }
            XCTAssertEqual(all.count, 21, tag)
            for (key, text, englishText) in all {
                XCTAssertFalse(text.isEmpty, "\(tag) \(key)")
                XCTAssertFalse(text.unicodeScalars.contains("\u{FFFD}"), "\(tag) \(key): not valid UTF-8 in its .po")
                XCTAssertEqual(MessageSanitizer.sanitize(text), text, "\(tag) \(key): blanks, controls or bidi controls")
                if tag != "en", !Self.sameAsEnglish.contains("\(tag) \(key)"), !key.hasPrefix("month.") {
                    XCTAssertNotEqual(text, englishText, "\(tag) \(key) is the English text")
                }
            }
            XCTAssertEqual(Set(prompt.map(\.1)).count, prompt.count, "\(tag): two prompt strings are the same")
            XCTAssertEqual(Set(catalog.months).count, 12, tag)
            XCTAssertEqual(count("{date}", in: catalog.requiredFromMessage), 1, tag)
            for placeholder in ["{day}", "{month}", "{year}"] {
                XCTAssertEqual(count(placeholder, in: catalog.datePattern), 1, "\(tag) \(placeholder)")
            }
            let sentence = catalog.requiredFrom(year: 2027, month: 3, day: 1)
            XCTAssertFalse(sentence.contains("{"), "\(tag): \(sentence)")
            XCTAssertTrue(sentence.contains("2027") && sentence.contains(catalog.months[2]), "\(tag): \(sentence)")
        }
    }

    func testDatesInSomeLanguages() {
        let rows: [(String, String, UInt)] = [
            ("ja", "このバージョンは2027年3月1日以降使用できなくなります。それまでにアップデートしてください。", #line),
            ("zh-TW", "此版本將於2027年3月1日停止運作。請在此之前更新。", #line),
            ("ar", "سيتوقف هذا الإصدار عن العمل في 1 مارس 2027. يُرجى التحديث قبل ذلك.", #line),
            ("fi", "Tämä versio lakkaa toimimasta 1. maaliskuuta 2027. Päivitä ennen sitä.", #line),
            ("pl", "Ta wersja przestanie działać 1 marca 2027. Zaktualizuj przed tym terminem.", #line),
        ]
        for (tag, expected, line) in rows {
            XCTAssertEqual(MessageCatalog.forLanguage(tag).requiredFrom(year: 2027, month: 3, day: 1), expected, line: line)
        }
    }

    /// The gettext chain (LocaleChoice): one row per rule.
    func testSelectionChain() {
        let rows: [(String?, [String: String], String, UInt)] = [
            // LANGUAGE, tried in order; an unknown entry is skipped
            (nil, ["LANGUAGE": "xx:de", "LANG": "fr_FR.UTF-8"], "de", #line),
            (nil, ["LANGUAGE": "xx_YY.UTF-8:zz::pt_BR", "LANG": "fr_FR.UTF-8"], "pt-BR", #line),
            (nil, ["LANGUAGE": "pt_BR:pt:en", "LANG": "de_DE.UTF-8"], "pt-BR", #line),
            (nil, ["LANGUAGE": "", "LANG": "fr_FR.UTF-8"], "fr", #line),
            (nil, ["LANGUAGE": ":", "LANG": "fr_FR.UTF-8"], "fr", #line),
            (nil, ["LANGUAGE": "xx:yy", "LANG": "fr_FR.UTF-8"], "en", #line),  // GNU: the list, not LANG
            (nil, ["LANGUAGE": "en_GB:de", "LANG": "de_DE.UTF-8"], "en", #line),
            // ll_CC@variant → ll_CC → ll@variant → ll
            ("de_AT", [:], "de", #line),
            ("de_AT.UTF-8@euro", [:], "de", #line),
            ("sr_RS@latin", [:], "sr-Latn", #line),
            ("sr_RS.UTF-8@latin", [:], "sr-Latn", #line),
            ("sr-Latn-RS", [:], "sr-Latn", #line),
            ("sr_RS", [:], "sr", #line),
            ("sr@ijekavian", [:], "sr", #line),
            // LC_ALL over LC_MESSAGES over LANG
            (nil, ["LC_ALL": "es_ES.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"], "es", #line),
            (nil, ["LC_MESSAGES": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"], "fr", #line),
            // Portuguese: Brazil, and Portugal for every other region
            ("pt_PT.UTF-8", [:], "pt", #line), ("pt_BR.UTF-8", [:], "pt-BR", #line), ("pt", [:], "pt", #line),
            ("pt-BR", [:], "pt-BR", #line), ("pt_AO", [:], "pt", #line),
            // Chinese: Traditional for TW/HK/MO and Hant, Simplified for CN/SG, Hans and bare zh
            ("zh_TW.UTF-8", [:], "zh-TW", #line), ("zh_HK", [:], "zh-TW", #line), ("zh_MO", [:], "zh-TW", #line),
            ("zh-Hant", [:], "zh-TW", #line), ("zh-Hant-TW", [:], "zh-TW", #line),
            ("zh_CN.UTF-8", [:], "zh-CN", #line), ("zh_SG", [:], "zh-CN", #line), ("zh", [:], "zh-CN", #line),
            ("zh-Hans", [:], "zh-CN", #line),
            // Norwegian; old codes
            ("no_NO", [:], "nb", #line), ("nb_NO.UTF-8", [:], "nb", #line), ("nn_NO", [:], "nn", #line),
            ("iw_IL", [:], "he", #line), ("in_ID", [:], "id", #line), ("tl_PH", [:], "fil", #line),
            ("ja_JP.UTF-8", [:], "ja", #line), ("ar_EG", [:], "ar", #line), ("es-419", [:], "es", #line),
            // the option over the environment
            ("de", ["LANGUAGE": "fr", "LC_ALL": "es_ES.UTF-8"], "de", #line),
            ("xx", ["LANGUAGE": "fr", "LC_ALL": "es_ES.UTF-8"], "en", #line),
            ("", ["LANGUAGE": "fr", "LC_ALL": "es_ES.UTF-8"], "fr", #line),
            // GNU: LANGUAGE is ignored under the C locale (unset counts as C)
            (nil, ["LANGUAGE": "de", "LC_ALL": "C"], "en", #line),
            (nil, ["LANGUAGE": "de", "LANG": "POSIX"], "en", #line),
            (nil, ["LANGUAGE": "de", "LC_ALL": "C", "LANG": "fr_FR.UTF-8"], "en", #line),
            (nil, ["LANGUAGE": "de"], "en", #line),
            (nil, ["LANGUAGE": "de", "LANG": "C.UTF-8"], "de", #line),
            (nil, ["LANGUAGE": "de", "LANG": "fr_FR.UTF-8"], "de", #line),
            ("fr", ["LANGUAGE": "de", "LC_ALL": "C"], "fr", #line),
        ]
        for (option, environment, tag, line) in rows {
            XCTAssertEqual(LocaleChoice.resolve(option: option, environment: environment), tag,
                           "\(option ?? "-") \(environment)", line: line)
        }
    }

    func testChainOfNames() {
        let rows: [(String?, [String: String], [String], UInt)] = [
            (nil, ["LANGUAGE": "pt_BR:de_AT", "LANG": "fr_FR"], ["pt_BR", "pt", "de_AT", "de"], #line),
            ("sr_RS.UTF-8@latin", [:], ["sr_RS@latin", "sr_RS", "sr@latin", "sr"], #line),
            ("zh_HK", [:], ["zh_HK", "zh_TW", "zh"], #line),
            ("zh", [:], ["zh", "zh_CN"], #line),
            (nil, ["LC_ALL": "C", "LANGUAGE": "de"], [], #line),
            (nil, ["LANGUAGE": "de:de_DE:de", "LANG": "fr_FR"], ["de", "de_DE"], #line),
        ]
        for (option, environment, chain, line) in rows {
            XCTAssertEqual(LocaleChoice.choose(option: option, environment: environment).chain, chain, line: line)
        }
    }

    func testNormalizedNames() {
        let rows: [(String, String?, UInt)] = [
            ("pt_BR", "pt_BR", #line), ("pt-br", "pt_BR", #line), ("PT_br", "pt_BR", #line), ("de", "de", #line),
            ("sr_latin", "sr@latin", #line), ("sr@latin", "sr@latin", #line), ("sr-Latn", "sr@latin", #line),
            ("zh_Hant", "zh_TW", #line), ("zh_HK", "zh_HK", #line), ("no", "nb", #line), ("x", nil, #line),
            ("", nil, #line), ("1234", nil, #line), ("de_DE.UTF-8", "de_DE", #line),
        ]
        for (text, name, line) in rows {
            XCTAssertEqual(LocaleChoice.normalizedName(text), name, text, line: line)
        }
    }

    /// update_message_<lang> along the chain, then update_message, then nil (the built-in text).
    func testPerLanguageUpdateMessage() {
        let values = ["min_required_version_linux": "1.0.39", "update_message": "generic",
                      "update_message_pt_BR": "brasil", "update_message_pt": "portugal", "update_message_de": "deutsch",
                      "update_message_zh-Hant": "traditional", "update_message_sr_latin": "latinica",
                      "update_message_fr": "  ", "update_message_x": "bad key"]
        let snapshot = GateSnapshot(config: GateConfig(values: values), platform: "linux", documentName: "t")
        let rows: [(String?, [String: String], String?, UInt)] = [
            ("pt_BR.UTF-8", [:], "brasil", #line),
            ("pt_PT", [:], "portugal", #line),
            ("de_AT", [:], "deutsch", #line),
            (nil, ["LANGUAGE": "ja:de", "LANG": "ja_JP.UTF-8"], "deutsch", #line),
            (nil, ["LANGUAGE": "pt_BR:de", "LANG": "de_DE.UTF-8"], "brasil", #line),
            ("zh_HK", [:], "traditional", #line),
            ("zh_CN", [:], "generic", #line),
            ("sr_RS@latin", [:], "latinica", #line),
            ("sr_RS", [:], "generic", #line),
            ("fr_FR", [:], "generic", #line),  // a blank message counts as absent
            (nil, ["LC_ALL": "C", "LANGUAGE": "de"], "generic", #line),
        ]
        for (option, environment, expected, line) in rows {
            let chain = LocaleChoice.choose(option: option, environment: environment).chain
            XCTAssertEqual(snapshot.updateMessage(chain: chain)?.string, expected, line: line)
        }
        let withoutGeneric = GateSnapshot(config: GateConfig(values: ["update_message_de": "deutsch"]),
                                          platform: "linux", documentName: "t")
        XCTAssertNil(withoutGeneric.updateMessage(chain: ["fr"]))
        XCTAssertEqual(withoutGeneric.updateMessage(chain: ["de"])?.string, "deutsch")
    }

    private func count(_ needle: String, in text: String) -> Int {
        let bytes = Array(text.utf8), pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return 0 }
        return (0...(bytes.count - pattern.count)).filter { Array(bytes[$0..<($0 + pattern.count)]) == pattern }.count
    }
}
