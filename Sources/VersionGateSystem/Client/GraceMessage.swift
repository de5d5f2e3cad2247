import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The prompt's message in a grace period: the built-in "stops working on
/// <date>" in the user's language, the date in the user's time zone (TZ),
/// after the operator's update_message when there is one.
package enum GraceMessage {
    package static func text(requiredFrom: Int64, language: String, updateMessage: CText?) -> String {
        var seconds = time_t(requiredFrom)
        var local = tm()
        let offset = localtime_r(&seconds, &local) == nil ? 0 : Int64(local.tm_gmtoff)
        let date = RFC3339.civil(requiredFrom &+ offset)
        let sentence = MessageCatalog.forLanguage(language).requiredFrom(year: date.year, month: date.month, day: date.day)
        return updateMessage.map { $0.string + " " + sentence } ?? sentence
    }
}
