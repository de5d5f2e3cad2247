/// Which built-in catalog to use (SPEC §8). Pure: the environment is passed in.
package enum LocaleChoice {
    /// The `locale` option if non-empty, else the first non-empty of `LC_ALL`,
    /// `LC_MESSAGES`, `LANG` (POSIX precedence: an unsupported first choice is
    /// not skipped for a later one). Accepts POSIX forms ("pt_BR.UTF-8@euro",
    /// "de_DE", "fr", "C", "POSIX") and BCP 47 ("pt-BR", "es-419"). Returns a
    /// `MessageCatalog` tag; "C", "POSIX" and unknown languages give "en".
    package static func resolve(option: String?, environment: [String: String]) -> String {
        let candidates = [option] + ["LC_ALL", "LC_MESSAGES", "LANG"].map { environment[$0] }
        guard let chosen = candidates.lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            return MessageCatalog.english.language
        }
        return catalogTag(language: language(of: chosen))
    }

    /// "pt_BR.UTF-8@euro" → "pt": the letters before any `_ - . @`, lowercased.
    private static func language(of locale: String) -> String {
        let letters = locale.unicodeScalars.prefix { !"_-.@".unicodeScalars.contains($0) }
        return String(String.UnicodeScalarView(letters)).lowercased()
    }

    /// Portuguese of any region gets the one Portuguese catalog we have.
    private static func catalogTag(language: String) -> String {
        switch language {
        case "pt": MessageCatalog.portugueseBrazil.language
        case "es": MessageCatalog.spanish.language
        case "de": MessageCatalog.german.language
        case "fr": MessageCatalog.french.language
        default: MessageCatalog.english.language
        }
    }
}
