/// The prompt's message in a grace period: the built-in "stops working on
/// <date>" in the user's language, the date in the user's time zone (the
/// offset the System seam gives for that instant), after the operator's
/// update_message when there is one. Pure.
package enum GraceMessage {
    package static func text(requiredFrom: Int64, utcOffset: Int64, language: String, updateMessage: CText?) -> String {
        let date = RFC3339.civil(requiredFrom &+ utcOffset)
        let sentence = MessageCatalog.forLanguage(language).requiredFrom(year: date.year, month: date.month, day: date.day)
        return updateMessage.map { $0.string + " " + sentence } ?? sentence
    }
}
