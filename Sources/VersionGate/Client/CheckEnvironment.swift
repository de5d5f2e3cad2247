#if canImport(Glibc)
import Glibc
#endif

/// The parts of the process environment a check depends on, read once per
/// check so the decision code itself never touches the environment.
struct CheckEnvironment: Sendable {
    var variables: [String: String]

    static let names = ["LC_ALL", "LC_MESSAGES", "LANG", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "XDG_STATE_HOME",
                        "HOME", "TZ"]

    static func current() -> CheckEnvironment {
        var variables: [String: String] = [:]
        for name in names {
            if let value = getenv(name).flatMap({ String(validatingCString: $0) }) {
                variables[name] = value
            }
        }
        return CheckEnvironment(variables: variables)
    }

    var runtimeDirectory: String? { variables["XDG_RUNTIME_DIR"] }

    /// The user's locale name by POSIX precedence (first non-empty).
    var localeName: String? {
        ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { self.variables[$0] }.first { !$0.isEmpty }
    }
}
