import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a check sees it: read on demand (a warm
/// check of a local document needs none of it), or fixed by a test. The
/// decision code itself never touches the environment.
package struct CheckEnvironment: Sendable {
    private let fixed: [String: String]?
    /// The XDG homes, resolved once: at once for a fixed environment, when
    /// a client is made for the process's (`capturingDirectories`); nil:
    /// resolved at each ask.
    private var directories: Directories?

    /// A class: a result keeps the environment, and a copy then retains one object, not two strings.
    private final class Directories: Sendable {
        let cacheHome, stateHome: String?
        init(cacheHome: String?, stateHome: String?) { (self.cacheHome, self.stateHome) = (cacheHome, stateHome) }
    }

    package init(variables: [String: String]) {
        fixed = variables
        directories = Directories(cacheHome: XDGDirectories.cacheHome(variables),
                                  stateHome: XDGDirectories.stateHome(variables))
    }

    /// A fixed environment whose XDG homes were resolved elsewhere (the
    /// fetch helper's: the host's, as the host resolved them).
    package init(variables: [String: String], cacheHome: String?, stateHome: String?) {
        fixed = variables
        directories = Directories(cacheHome: cacheHome, stateHome: stateHome)
    }

    private init() { fixed = nil }

    package static func current() -> CheckEnvironment { CheckEnvironment() }

    /// The same environment with its XDG homes resolved now, for every
    /// check of one client (instead of at each cache, state and prompt file).
    package func capturingDirectories() -> CheckEnvironment {
        var captured = self
        captured.directories = Directories(cacheHome: cacheHome, stateHome: stateHome)
        return captured
    }

    /// `$XDG_CACHE_HOME` by the XDG rules (XDGDirectories).
    package var cacheHome: String? {
        if let directories { return directories.cacheHome }
        return XDGDirectories.cacheHome(variables)
    }

    /// `$XDG_STATE_HOME` by the XDG rules (XDGDirectories).
    package var stateHome: String? {
        if let directories { return directories.stateHome }
        return XDGDirectories.stateHome(variables)
    }

    package static let names = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "XDG_STATE_HOME",
                        "HOME", "TZ"]

    /// What a fetch in the helper needs of the host's environment: `names`
    /// and the proxies, those set.
    package var forwarded: [String: String] {
        let variables = self.variables
        var forwarded: [String: String] = [:]
        for name in Self.names + HelperRequest.ConfigFetch.proxyNames {
            if let value = variables[name] ?? value(name) { forwarded[name] = value }
        }
        return forwarded
    }

    package func value(_ name: String) -> String? {
        if let fixed { return fixed[name] }
        return ProcessEnvironment.value(name)
    }

    /// Every variable a check may use, for the pure functions that take a dictionary.
    package var variables: [String: String] {
        if let fixed { return fixed }
        var variables: [String: String] = [:]
        for name in Self.names { variables[name] = value(name) }
        return variables
    }

    package var runtimeDirectory: String? { value("XDG_RUNTIME_DIR") }

    /// The user's locale name by POSIX precedence (first non-empty).
    package var localeName: String? {
        ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { self.value($0) }.first { !$0.isEmpty }
    }

    /// The catalog language: the `locale` option, else the environment's.
    package func language(option: String?) -> String {
        localeChoice(option: option).tag
    }

    /// The catalog and the chain of locale names (LocaleChoice): the
    /// `locale` option, else LANGUAGE, LC_ALL, LC_MESSAGES, LANG.
    package func localeChoice(option: String?) -> LocaleChoice.Choice {
        var variables: [String: String] = [:]
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] { variables[name] = value(name) }
        return LocaleChoice.choose(option: option, environment: variables)
    }
}

/// LANGUAGE, LC_ALL, LC_MESSAGES, LANG as one check read them: a prompting
/// check compares the environment with these byte for byte (`hasLocale`),
/// so a host's change of locale is seen without making four Strings each time.
package struct LocaleInputs: Sendable, Equatable {
    fileprivate let values: [[UInt8]?]
}

extension CheckEnvironment {
    /// Static: getenv gets the literal's bytes (a String would be copied
    /// into a fresh C string at each call).
    private static let localeNames: [StaticString] = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]

    package func localeInputs() -> LocaleInputs {
        LocaleInputs(values: Self.localeNames.map { name in value(name.description).map { Array($0.utf8) } })
    }

    /// Whether the locale variables are still `inputs` (allocates nothing).
    package func hasLocale(_ inputs: LocaleInputs) -> Bool {
        guard inputs.values.count == Self.localeNames.count else { return false }
        for (name, kept) in zip(Self.localeNames, inputs.values) {
            if let fixed {
                guard let text = fixed[name.description] else { if kept == nil { continue } else { return false } }
                guard let kept, text.utf8.elementsEqual(kept) else { return false }
            } else if !Self.same(getenv(UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)), kept) {
                return false
            }
        }
        return true
    }

    private static func same(_ value: UnsafePointer<CChar>?, _ kept: [UInt8]?) -> Bool {
        guard let value, let kept else { return value == nil && kept == nil }
        // A kept value holds no NUL: the C string's NUL ends the loop by a mismatch.
        for (i, byte) in kept.enumerated() where UInt8(bitPattern: value[i]) != byte { return false }
        return value[kept.count] == 0
    }
}
