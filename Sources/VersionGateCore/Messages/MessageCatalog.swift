/// The built-in texts of the update prompt in one language (SPEC §8), used
/// when the config has no `update_message`.
package struct MessageCatalog: Sendable, Equatable {
    /// The catalog's tag, as `LocaleChoice.resolve` returns it, e.g. "pt-BR".
    package let language: String
    package let mandatoryTitle, mandatoryMessage, optionalTitle, optionalMessage, updateLabel, laterLabel: String
    /// OPTIONAL's third button (vg_client_skip_version).
    package let skipLabel: String
    /// The grace period's message (OPTIONAL until a minimum takes effect); {date} is the date.
    package let requiredFromMessage: String
    /// How a date is written, with {day}, {month} (a name from `months`) and {year}.
    package let datePattern: String
    package let months: [String]

    /// `requiredFromMessage` for a calendar date (month 1-12).
    package func requiredFrom(year: Int64, month: Int64, day: Int64) -> String {
        let name = (1...12).contains(month) && months.count == 12 ? months[Int(month) - 1] : String(month)
        let date = Self.filled(datePattern, [("{day}", String(day)), ("{month}", name), ("{year}", String(year))])
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

    /// The catalog tagged `tag`; English for any other tag.
    package static func forLanguage(_ tag: String) -> MessageCatalog {
        all.first { $0.language == tag } ?? english
    }

    package static let all = [english, portugueseBrazil, spanish, german, french]

    package static let english = MessageCatalog(
        language: "en",
        mandatoryTitle: "Update required",
        mandatoryMessage: "This version is no longer supported. Please update to continue.",
        optionalTitle: "Update available",
        optionalMessage: "A new version is available.",
        updateLabel: "Update",
        laterLabel: "Later",
        skipLabel: "Skip this version",
        requiredFromMessage: "This version will stop working on {date}. Please update before then.",
        datePattern: "{month} {day}, {year}",
        months: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                 "November", "December"])

    package static let portugueseBrazil = MessageCatalog(
        language: "pt-BR",
        mandatoryTitle: "Atualização necessária",
        mandatoryMessage: "Esta versão não é mais suportada. Atualize para continuar.",
        optionalTitle: "Atualização disponível",
        optionalMessage: "Uma nova versão está disponível.",
        updateLabel: "Atualizar",
        laterLabel: "Mais tarde",
        skipLabel: "Pular esta versão",
        requiredFromMessage: "Esta versão deixará de funcionar em {date}. Atualize antes dessa data.",
        datePattern: "{day} de {month} de {year}",
        months: ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
                 "novembro", "dezembro"])

    package static let spanish = MessageCatalog(
        language: "es",
        mandatoryTitle: "Actualización necesaria",
        mandatoryMessage: "Esta versión ya no es compatible. Actualiza la aplicación para continuar.",
        optionalTitle: "Actualización disponible",
        optionalMessage: "Hay una nueva versión disponible.",
        updateLabel: "Actualizar",
        laterLabel: "Más tarde",
        skipLabel: "Omitir esta versión",
        requiredFromMessage: "Esta versión dejará de funcionar el {date}. Actualiza antes de esa fecha.",
        datePattern: "{day} de {month} de {year}",
        months: ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
                 "noviembre", "diciembre"])

    package static let german = MessageCatalog(
        language: "de",
        mandatoryTitle: "Update erforderlich",
        mandatoryMessage: "Diese Version wird nicht mehr unterstützt. Bitte aktualisieren Sie die App, um fortzufahren.",
        optionalTitle: "Update verfügbar",
        optionalMessage: "Eine neue Version ist verfügbar.",
        updateLabel: "Aktualisieren",
        laterLabel: "Später",
        skipLabel: "Diese Version überspringen",
        requiredFromMessage: "Diese Version funktioniert ab dem {date} nicht mehr. Bitte aktualisieren Sie vorher.",
        datePattern: "{day}. {month} {year}",
        months: ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                 "November", "Dezember"])

    package static let french = MessageCatalog(
        language: "fr",
        mandatoryTitle: "Mise à jour requise",
        mandatoryMessage: "Cette version n’est plus prise en charge. Veuillez effectuer la mise à jour pour continuer.",
        optionalTitle: "Mise à jour disponible",
        optionalMessage: "Une nouvelle version est disponible.",
        updateLabel: "Mettre à jour",
        laterLabel: "Plus tard",
        skipLabel: "Ignorer cette version",
        requiredFromMessage: "Cette version cessera de fonctionner le {date}. Veuillez effectuer la mise à jour avant cette date.",
        datePattern: "{day} {month} {year}",
        months: ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
                 "novembre", "décembre"])
}
