/// The built-in texts of the update prompt in one language (SPEC §8), used
/// when the config has no `update_message`.
package struct MessageCatalog: Sendable, Equatable {
    /// The catalog's tag, as `LocaleChoice.resolve` returns it, e.g. "pt-BR".
    package let language: String
    package let mandatoryTitle, mandatoryMessage, optionalTitle, optionalMessage, updateLabel, laterLabel: String

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
        laterLabel: "Later")

    package static let portugueseBrazil = MessageCatalog(
        language: "pt-BR",
        mandatoryTitle: "Atualização necessária",
        mandatoryMessage: "Esta versão não é mais suportada. Atualize para continuar.",
        optionalTitle: "Atualização disponível",
        optionalMessage: "Uma nova versão está disponível.",
        updateLabel: "Atualizar",
        laterLabel: "Mais tarde")

    package static let spanish = MessageCatalog(
        language: "es",
        mandatoryTitle: "Actualización necesaria",
        mandatoryMessage: "Esta versión ya no es compatible. Actualiza la aplicación para continuar.",
        optionalTitle: "Actualización disponible",
        optionalMessage: "Hay una nueva versión disponible.",
        updateLabel: "Actualizar",
        laterLabel: "Más tarde")

    package static let german = MessageCatalog(
        language: "de",
        mandatoryTitle: "Update erforderlich",
        mandatoryMessage: "Diese Version wird nicht mehr unterstützt. Bitte aktualisieren Sie die App, um fortzufahren.",
        optionalTitle: "Update verfügbar",
        optionalMessage: "Eine neue Version ist verfügbar.",
        updateLabel: "Aktualisieren",
        laterLabel: "Später")

    package static let french = MessageCatalog(
        language: "fr",
        mandatoryTitle: "Mise à jour requise",
        mandatoryMessage: "Cette version n’est plus prise en charge. Veuillez effectuer la mise à jour pour continuer.",
        optionalTitle: "Mise à jour disponible",
        optionalMessage: "Une nouvelle version est disponible.",
        updateLabel: "Mettre à jour",
        laterLabel: "Plus tard")
}
