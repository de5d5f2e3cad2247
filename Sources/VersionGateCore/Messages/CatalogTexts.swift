import Synchronization

/// A language's built-in strings as C strings, made once per language and
/// shared by every result that shows them.
package final class CatalogTexts: Sendable {
    package let language: String
    package let mandatoryTitle, mandatoryMessage, optionalTitle, optionalMessage, updateLabel, laterLabel, skipLabel: CText
    /// MANDATORY's message when this system does not meet the required version's requirements.
    package let mandatoryUnsupportedMessage: CText
    /// A MANDATORY the user's channel cannot satisfy yet, softened to OPTIONAL.
    package let channelMessage: CText
    /// A managed MANDATORY's button: it opens the administrator's help page.
    package let helpPageLabel: CText

    private init(_ catalog: MessageCatalog) {
        language = catalog.language
        mandatoryTitle = CText(catalog.mandatoryTitle)
        mandatoryMessage = CText(catalog.mandatoryMessage)
        mandatoryUnsupportedMessage = CText(catalog.mandatoryUnsupportedMessage)
        channelMessage = CText(catalog.channelMessage)
        optionalTitle = CText(catalog.optionalTitle)
        optionalMessage = CText(catalog.optionalMessage)
        updateLabel = CText(catalog.updateLabel)
        laterLabel = CText(catalog.laterLabel)
        skipLabel = CText(catalog.skipLabel)
        helpPageLabel = CText(catalog.helpPageLabel)
    }

    private static let made = Mutex<[String: CatalogTexts]>([:])

    package static func forLanguage(_ tag: String) -> CatalogTexts {
        made.withLock { made in
            if let texts = made[tag] { return texts }
            let texts = CatalogTexts(MessageCatalog.forLanguage(tag))
            made[tag] = texts
            return texts
        }
    }
}
