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
        XCTAssertEqual(english.mandatoryUnsupportedMessage,
                       "This version is no longer supported, and its update cannot be installed on this system.")
        for catalog in MessageCatalog.all {
            let tag = catalog.language
            XCTAssertEqual(MessageCatalog.forLanguage(tag), catalog, tag)
            let prompt = [("mandatory.title", catalog.mandatoryTitle, english.mandatoryTitle),
                          ("mandatory.message", catalog.mandatoryMessage, english.mandatoryMessage),
                          ("mandatory.unsupported", catalog.mandatoryUnsupportedMessage,
                           english.mandatoryUnsupportedMessage),
                          ("optional.title", catalog.optionalTitle, english.optionalTitle),
                          ("optional.message", catalog.optionalMessage, english.optionalMessage),
                          ("button.update", catalog.updateLabel, english.updateLabel),
                          ("button.later", catalog.laterLabel, english.laterLabel),
                          ("button.skip", catalog.skipLabel, english.skipLabel),
                          ("channel.message", catalog.channelMessage, english.channelMessage),
                          ("button.help_page", catalog.helpPageLabel, english.helpPageLabel)]
            let all = prompt + [("grace.message", catalog.requiredFromMessage, english.requiredFromMessage),
                                ("date.pattern", catalog.datePattern, english.datePattern)]
                + zip(catalog.months, english.months).enumerated().map { ("month.\($0 + 1)", $1.0, $1.1) }
                + [("date.day1", catalog.firstDay, english.firstDay)]
            XCTAssertEqual(all.count, 25, tag)
            XCTAssertEqual(Set(all.map(\.0)), Set(MessageCatalog.fieldOrder), "\(tag): a catalog field is not checked here")
            for (key, text, englishText) in all {
                XCTAssertFalse(text.isEmpty, "\(tag) \(key)")
                XCTAssertFalse(text.unicodeScalars.contains("\u{FFFD}"), "\(tag) \(key): not valid UTF-8 in its .po")
                XCTAssertEqual(MessageSanitizer.sanitize(text), text, "\(tag) \(key): blanks, controls or bidi controls")
                if tag != "en", !Self.sameAsEnglish.contains("\(tag) \(key)"), !key.hasPrefix("month."), key != "date.day1" {
                    XCTAssertNotEqual(text, englishText, "\(tag) \(key) is the English text")
                }
            }
            XCTAssertEqual(Set(prompt.map(\.1)).count, prompt.count, "\(tag): two prompt strings are the same")
            // Shown instead of mandatory.message when updating cannot help on this system: its own words.
            XCTAssertNotEqual(catalog.mandatoryUnsupportedMessage, catalog.mandatoryMessage, tag)
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

    /// The grace sentence on 1, 8 and 11 March where the date's grammar depends on the day or
    /// the sentence: the first of the month as an ordinal (fr, pt, pt-BR, it), no article that
    /// would have to elide or agree with the number (it, ca, mt), the month's case (et, ka), and
    /// no abbreviation before the sentence's stop (ru, uk, bg, lt, hy).
    func testGraceSentenceOnTheFirstEighthAndEleventh() {
        let rows: [(String, String, [String], UInt)] = [
            ("fr", "Cette version cessera de fonctionner le {d} mars 2027. Veuillez effectuer la mise à jour avant cette date.",
             ["1er", "8", "11"], #line),
            ("pt", "Esta versão deixará de funcionar a {d} de março de 2027. Atualize antes dessa data.", ["1º", "8", "11"], #line),
            ("pt-BR", "Esta versão deixará de funcionar em {d} de março de 2027. Atualize antes dessa data.",
             ["1º", "8", "11"], #line),
            ("it", "Questa versione smetterà di funzionare il giorno {d} marzo 2027. Aggiorna prima di tale data.",
             ["1º", "8", "11"], #line),
            ("ca", "Aquesta versió deixarà de funcionar el dia {d} de març de 2027. Actualitzeu-la abans d’aquesta data.",
             ["1", "8", "11"], #line),
            ("mt", "Din il-verżjoni se tieqaf taħdem fid-data li ġejja: {d} ta’ Marzu 2027. Aġġorna qabel dik id-data.",
             ["1", "8", "11"], #line),
            ("et", "See versioon lakkab töötamast {d}. märtsil 2027. Uuendage enne seda.", ["1", "8", "11"], #line),
            ("ka", "ეს ვერსია 2027 წლის {d} მარტს შეწყვეტს მუშაობას. გთხოვთ, განაახლოთ მანამდე.", ["1", "8", "11"], #line),
            ("ru", "Эта версия перестанет работать {d} марта 2027 года. Обновите приложение до этой даты.",
             ["1", "8", "11"], #line),
            ("uk", "Ця версія припинить роботу {d} березня 2027 року. Оновіть програму до цієї дати.", ["1", "8", "11"], #line),
            ("bg", "На {d} март 2027 г. тази версия ще спре да работи. Актуализирайте преди това.", ["1", "8", "11"], #line),
            ("lt", "Nuo 2027 m. kovo {d} d. ši versija nebeveiks. Atnaujinkite iki tos datos.", ["1", "8", "11"], #line),
            ("hy", "Այս տարբերակը {d} մարտի 2027 թ. կդադարի աշխատել։ Թարմացրեք մինչ այդ։", ["1", "8", "11"], #line),
            ("en", "This version will stop working on March {d}, 2027. Please update before then.", ["1", "8", "11"], #line),
        ]
        for (tag, sentence, days, line) in rows {
            for (day, written) in zip([Int64(1), 8, 11], days) {
                let expected = String(sentence.split(separator: "{d}", omittingEmptySubsequences: false)
                    .joined(separator: written))
                XCTAssertEqual(MessageCatalog.forLanguage(tag).requiredFrom(year: 2027, month: 3, day: day), expected,
                               "\(tag) \(day)", line: line)
            }
        }
    }

    /// The words the review asked for: Persian Skip, Uzbek oʻ with U+02BB (the letter, not the quote U+2018).
    func testPersianSkipAndUzbekLetter() {
        XCTAssertEqual(MessageCatalog.forLanguage("fa").skipLabel, "رد شدن از این نسخه")
        let uzbek = MessageCatalog.forLanguage("uz")
        XCTAssertEqual(uzbek.skipLabel, "Bu versiyani o\u{02BB}tkazib yuborish")
        for text in [uzbek.mandatoryTitle, uzbek.mandatoryMessage, uzbek.mandatoryUnsupportedMessage,
                     uzbek.optionalTitle, uzbek.optionalMessage, uzbek.updateLabel, uzbek.laterLabel, uzbek.skipLabel,
                     uzbek.requiredFromMessage] + uzbek.months {
            XCTAssertFalse(text.unicodeScalars.contains("\u{2018}"), text)
        }
    }

    /// The grace sentence of every catalog, rendered for several days of every month: no date
    /// pattern's abbreviation ("2027 г.") followed by the sentence's own stop ("г.." or "թ.։"),
    /// no stop doubled with the script's full stop (։ Armenian, ۔ Urdu, । Devanagari/Bengali,
    /// 。 CJK), and no placeholder left in the text.
    func testGraceSentenceInEveryCatalogForSeveralDays() {
        let stops: Set<Character> = [".", "\u{0589}", "\u{06D4}", "\u{0964}", "\u{3002}"]
        var languages: [String] = []
        for catalog in MessageCatalog.all {
            var bad: [String] = []
            for month in Int64(1)...12 {
                for day: Int64 in [1, 2, 3, 8, 11, 21, 28] {
                    let sentence = catalog.requiredFrom(year: 2027, month: month, day: day)
                    let characters = Array(sentence)
                    if zip(characters, characters.dropFirst()).contains(where: { stops.contains($0) && stops.contains($1) }) {
                        bad.append("a doubled stop: \(sentence)")
                    }
                    if sentence.contains("{") || sentence.contains("}") {
                        bad.append("a placeholder left: \(sentence)")
                    }
                    if !(sentence.contains("2027") && sentence.contains(catalog.months[Int(month) - 1])) {
                        bad.append("no year or month name: \(sentence)")
                    }
                }
            }
            XCTAssertEqual(bad, [], "\(catalog.language): \(bad.count) bad sentences, the first: \(bad.first ?? "")")
            if !bad.isEmpty { languages.append(catalog.language) }
        }
        XCTAssertEqual(languages, [], "the grace sentence renders badly in these catalogs")
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
