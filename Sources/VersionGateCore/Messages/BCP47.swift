/// POSIX locale names in BCP 47 form, for protocols that want one.
package enum BCP47 {
    /// "pt_BR.UTF-8@euro" → "pt-BR"; "C"/"POSIX"/unusable → "en".
    package static func tag(of locale: String?) -> String {
        guard let locale, let language = parts(locale)?.language else { return "en" }
        return region(of: locale).map { "\(language)-\($0)" } ?? language
    }

    package static func region(of locale: String?) -> String? {
        guard let locale else { return nil }
        return parts(locale)?.region
    }

    private static func parts(_ locale: String) -> (language: String, region: String?)? {
        let base = locale.prefix { $0 != "." && $0 != "@" }
        let pieces = base.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = pieces.first, (2...3).contains(first.count),
              first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        let language = first.lowercased()
        guard pieces.count > 1, pieces[1].count == 2, pieces[1].allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return (language, nil)
        }
        return (language, pieces[1].uppercased())
    }
}
