/// The built-in texts of the update prompt in one language (docs/design.md, "Messages"), used
/// when the config has no `update_message`.
package struct MessageCatalog: Sendable, Equatable {
    /// The catalog's tag, as `LocaleChoice.resolve` returns it, e.g. "pt-BR".
    package let language: String
    package let mandatoryTitle, mandatoryMessage, optionalTitle, optionalMessage, updateLabel, laterLabel: String
    /// MANDATORY's message, instead of `mandatoryMessage`, when the required version has
    /// requirements this system does not meet (e.g. a newer glibc): updating will not help here.
    package let mandatoryUnsupportedMessage: String
    /// The message of a MANDATORY softened because the user's channel does
    /// not serve the required version yet (docs/design.md, "Asking the channel").
    package let channelMessage: String
    /// OPTIONAL's third button (vg_client_skip_version).
    package let skipLabel: String
    /// A managed MANDATORY's button, instead of `updateLabel`: it opens the
    /// administrator's help page, not a store (docs/design.md, "The administrator's policy").
    package let helpPageLabel: String
    /// The grace period's message (OPTIONAL until a minimum takes effect); {date} is the date.
    package let requiredFromMessage: String
    /// How a date is written, with {day}, {month} (a name from `months`) and {year}.
    package let datePattern: String
    package let months: [String]
    /// {day} on the first of a month: "1", or the ordinal where the language writes it so
    /// ("1er" in French, "1º" in Portuguese); days 2-31 are their digits.
    package let firstDay: String

    /// Every text, in the catalog's row order (FIELDS in scripts/generate).
    package init(language: String, mandatoryTitle: String, mandatoryMessage: String, mandatoryUnsupportedMessage: String,
                 optionalTitle: String, optionalMessage: String, updateLabel: String, laterLabel: String,
                 skipLabel: String, requiredFromMessage: String, datePattern: String, months: [String],
                 firstDay: String, channelMessage: String, helpPageLabel: String) {
        self.language = language
        self.helpPageLabel = helpPageLabel
        self.channelMessage = channelMessage
        self.mandatoryTitle = mandatoryTitle
        self.mandatoryMessage = mandatoryMessage
        self.mandatoryUnsupportedMessage = mandatoryUnsupportedMessage
        self.optionalTitle = optionalTitle
        self.optionalMessage = optionalMessage
        self.updateLabel = updateLabel
        self.laterLabel = laterLabel
        self.skipLabel = skipLabel
        self.requiredFromMessage = requiredFromMessage
        self.datePattern = datePattern
        self.months = months
        self.firstDay = firstDay
    }

    /// `requiredFromMessage` for a calendar date (month 1-12).
    package func requiredFrom(year: Int64, month: Int64, day: Int64) -> String {
        let name = (1...12).contains(month) && months.count == 12 ? months[Int(month) - 1] : String(month)
        let dayText = day == 1 && !firstDay.isEmpty ? firstDay : String(day)
        let date = Self.filled(datePattern, [("{day}", dayText), ("{month}", name), ("{year}", String(year))])
        return Self.filled(requiredFromMessage, [("{date}", date)])
    }

    /// `pattern` with each placeholder replaced, by hand over bytes (no
    /// _StringProcessing: its 800 KB would load at every start).
    private static func filled(_ pattern: String, _ values: [(String, String)]) -> String {
        var out: [UInt8] = []
        let text = Array(pattern.utf8)
        var i = 0
        outer: while i < text.count {
            for (placeholder, value) in values where text[i...].starts(with: placeholder.utf8) {
                out += value.utf8
                i += placeholder.utf8.count
                continue outer
            }
            out.append(text[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

}

/// The shipped catalogs: the rows scripts/generate writes from po/
/// (Catalog.generated.swift), each parsed when first asked for.
extension MessageCatalog {
    /// The catalog tagged `tag`; English for any other tag.
    package static func forLanguage(_ tag: String) -> MessageCatalog {
        rowsByTag[tag].map { MessageCatalog(row: rows[$0]) } ?? english
    }

    /// The tag of the catalog made from po/<localeName>.po ("pt_BR" → "pt-BR",
    /// "sr@latin" → "sr-Latn", "en" → "en"); nil when there is none.
    package static func tag(localeName: String) -> String? {
        rowsByLocaleName[localeName].map { rows[$0].tag }
    }

    /// Every shipped catalog, English first (each parsed on this call).
    package static var all: [MessageCatalog] { rows.map(MessageCatalog.init(row:)) }

    package static let english = MessageCatalog(row: rows.first ?? ("en", "en", ""))

    private static let rowsByTag = index { $0.tag }
    private static let rowsByLocaleName = index { $0.localeName }

    private static func index(_ key: ((localeName: String, tag: String, texts: String)) -> String) -> [String: Int] {
        var index: [String: Int] = [:]
        for (offset, row) in rows.enumerated() where index[key(row)] == nil {
            index[key(row)] = offset
        }
        return index
    }

    /// A generated row: its texts in `fieldOrder`, each ended by U+001F
    /// (scripts/generate checks there are all of them; a missing one would be "").
    private init(row: (localeName: String, tag: String, texts: String)) {
        var texts: [String] = []
        var start = row.texts.utf8.startIndex
        for index in row.texts.utf8.indices where row.texts.utf8[index] == 0x1F {
            texts.append(String(decoding: row.texts.utf8[start..<index], as: UTF8.self))
            start = row.texts.utf8.index(after: index)
        }
        func text(_ n: Int) -> String { n < texts.count ? texts[n] : "" }
        self.init(language: row.tag, mandatoryTitle: text(0), mandatoryMessage: text(1),
                  mandatoryUnsupportedMessage: text(2), optionalTitle: text(3), optionalMessage: text(4),
                  updateLabel: text(5), laterLabel: text(6), skipLabel: text(7), requiredFromMessage: text(8),
                  datePattern: text(9), months: (10..<22).map(text), firstDay: text(22),
                  channelMessage: text(23), helpPageLabel: text(24))
    }
}
