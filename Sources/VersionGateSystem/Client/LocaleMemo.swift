import Synchronization
import VersionGateCore

/// The user's locale as a prompting check needs it: the catalog texts and
/// the region (the App Store country). The `locale` option and LANGUAGE,
/// LC_ALL, LC_MESSAGES, LANG are read on every check, since the host may change
/// them between checks, but worked out only when they differ from the last
/// check's: re-deriving them was a third of a prompting check.
package final class LocaleMemo: Sendable {
    package struct Resolved: Sendable {
        package let texts: CatalogTexts
        /// The locale names tried, in order: update_message_<name> follows it.
        package let chain: [String]
        /// From the option, else the environment's locale name: "de_AT" → "AT".
        package let region: String?
    }

    private struct Inputs: Equatable {
        package var option, language, all, messages, lang: String?
    }

    private let last = Mutex<(inputs: Inputs, resolved: Resolved)?>(nil)

    package func resolve(option: String?, environment: CheckEnvironment) -> Resolved {
        let inputs = Inputs(option: option, language: environment.value("LANGUAGE"), all: environment.value("LC_ALL"),
                            messages: environment.value("LC_MESSAGES"), lang: environment.value("LANG"))
        if let known = last.withLock({ $0 }), known.inputs == inputs { return known.resolved }
        let choice = environment.localeChoice(option: option)
        let resolved = Resolved(texts: CatalogTexts.forLanguage(choice.tag), chain: choice.chain,
                                region: BCP47.region(of: option ?? environment.localeName))
        last.withLock { $0 = (inputs, resolved) }
        return resolved
    }
}
