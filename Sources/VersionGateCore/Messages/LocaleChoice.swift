/// Which built-in catalog answers, chosen the way GNU gettext chooses
/// (docs/design.md, "Messages"). Pure: the environment is passed in.
///
/// 1. The `locale` option, when non-empty, is the only entry.
/// 2. Else the locale is the first non-empty of `LC_ALL`, `LC_MESSAGES`,
///    `LANG`. When it is "C" or "POSIX", or there is none (the C locale),
///    the entry is that locale and `LANGUAGE` is ignored (GNU's rule:
///    C-locale programs print the untranslated texts). "C.UTF-8" is a real
///    locale to glibc, so under it `LANGUAGE` counts.
/// 3. Else `LANGUAGE`'s colon-separated entries, tried in order, when it
///    has any; else the locale.
///
/// Each entry falls back `ll_CC@variant` → `ll_CC` → `ll@variant` → `ll`;
/// the codeset (".UTF-8") is ignored. Entries may be POSIX ("pt_BR.UTF-8",
/// "sr_RS@latin") or BCP 47 ("pt-BR", "zh-Hant-TW", "sr-Latn"). Aliases:
/// `zh_HK`/`zh_MO`/`zh-Hant` → Traditional (zh_TW), `zh_SG`/`zh`/`zh-Hans` →
/// Simplified (zh_CN); `no` → `nb`; the old codes `iw`, `in`, `ji`, `tl`
/// → `he`, `id`, `yi`, `fil`. The first name with a catalog answers; when
/// none has one, English.
package enum LocaleChoice {
    package struct Choice: Sendable, Equatable {
        /// The answering catalog's tag ("pt-BR", "zh-TW", "sr-Latn"); "en" when none answered.
        package let tag: String
        /// Every locale name tried, in order, normalized ("pt_BR", "pt", "sr@latin"):
        /// `update_message_<name>` is looked up along the same chain.
        package let chain: [String]
    }

    /// The catalog tag only (see `choose`).
    package static func resolve(option: String?, environment: [String: String]) -> String {
        choose(option: option, environment: environment).tag
    }

    /// `environment` needs `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG` (others are not read).
    package static func choose(option: String?, environment: [String: String]) -> Choice {
        var chain: [String] = []
        for entry in entries(option: option, environment: environment) {
            for name in fallbacks(of: entry) where !chain.contains(name) {
                chain.append(name)
            }
        }
        let tag = chain.lazy.compactMap { MessageCatalog.tag(localeName: $0) }.first ?? MessageCatalog.english.language
        return Choice(tag: tag, chain: chain)
    }

    /// The requested entries, before fallbacks: see the type's comment.
    private static func entries(option: String?, environment: [String: String]) -> [String] {
        if let option, !option.isEmpty { return [option] }
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, locale != "C", locale != "POSIX" else { return [] }
        let list = split(environment["LANGUAGE"] ?? "", at: 0x3A)  // ':'
        return list.isEmpty ? [locale] : list
    }

    /// A locale name written the one way keys and catalogs use: "pt_BR",
    /// "de", "sr@latin", "zh_TW" (from "pt-br", "DE", "sr-Latn", "zh-Hant").
    /// Nil when `text` does not start with a 2-3 letter language code.
    package static func normalizedName(_ text: String) -> String? {
        parse(text).map { render($0.language, $0.region, $0.variant) }
    }

    /// ll_CC@variant, ll_CC, (the Chinese script's region), ll@variant, ll.
    private static func fallbacks(of entry: String) -> [String] {
        guard let (language, region, variant) = parse(entry) else { return [] }
        var names: [String] = []
        if let region, let variant { names.append(render(language, region, variant)) }
        if let region {
            names.append(render(language, region, nil))
            if language == "zh", ["HK", "MO"].contains(region) { names.append("zh_TW") }
            if language == "zh", region == "SG" { names.append("zh_CN") }
        }
        if let variant { names.append(render(language, nil, variant)) }
        names.append(language)
        if language == "zh", region == nil { names.append("zh_CN") }
        return names
    }

    private static func render(_ language: String, _ region: String?, _ variant: String?) -> String {
        language + (region.map { "_" + $0 } ?? "") + (variant.map { "@" + $0 } ?? "")
    }

    /// "sr_RS.UTF-8@latin" → (sr, RS, latin); "zh-Hant" → (zh, TW, nil);
    /// "es-419" → (es, 419, nil). Pieces after the language: 4 letters a
    /// script, 2 letters or 3 digits a region, 5-8 letters or digits a variant.
    private static func parse(_ text: String) -> (language: String, region: String?, variant: String?)? {
        let bytes = Array(text.utf8)
        let baseEnd = bytes.firstIndex { $0 == 0x2E || $0 == 0x40 } ?? bytes.count  // '.' '@'
        var variant: String?
        if let at = bytes.firstIndex(of: 0x40) {
            let tail = bytes[(at + 1)...].prefix { $0 != 0x2E }
            if (2...8).contains(tail.count), tail.allSatisfy(isAlphanumeric) { variant = lower(tail) }
        }
        let pieces = split(String(decoding: bytes[..<baseEnd], as: UTF8.self), at: 0x5F, or: 0x2D)  // '_' '-'
        guard let first = pieces.first?.utf8, (2...3).contains(first.count), first.allSatisfy(isLetter) else {
            return nil
        }
        var language = lower(first)
        var region: String?, script: String?
        for piece in pieces.dropFirst().map({ Array($0.utf8) }) {
            if piece.count == 4, piece.allSatisfy(isLetter), script == nil {
                script = lower(piece)
            } else if region == nil, (piece.count == 2 && piece.allSatisfy(isLetter))
                        || (piece.count == 3 && piece.allSatisfy { (0x30...0x39).contains($0) }) {
                region = String(decoding: piece.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
            } else if variant == nil, (5...8).contains(piece.count), piece.allSatisfy(isAlphanumeric) {
                variant = lower(piece)
            }
        }
        language = aliases[language] ?? language
        switch (language, script) {
        case ("zh", "hant"): region = region ?? "TW"
        case ("zh", "hans"): region = region ?? "CN"
        case (_, "latn"): variant = variant ?? "latin"
        case (_, "cyrl"): variant = variant ?? "cyrillic"
        default: break
        }
        return (language, region, variant)
    }

    private static let aliases = ["no": "nb", "iw": "he", "in": "id", "ji": "yi", "tl": "fil"]

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || (0x30...0x39).contains(byte) }
    private static func lower<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The non-empty pieces of `text` between the separator bytes.
    private static func split(_ text: String, at separator: UInt8, or other: UInt8? = nil) -> [String] {
        var pieces: [String] = []
        var piece: [UInt8] = []
        for byte in text.utf8 {
            if byte == separator || byte == other {
                if !piece.isEmpty { pieces.append(String(decoding: piece, as: UTF8.self)) }
                piece = []
            } else {
                piece.append(byte)
            }
        }
        if !piece.isEmpty { pieces.append(String(decoding: piece, as: UTF8.self)) }
        return pieces
    }
}
