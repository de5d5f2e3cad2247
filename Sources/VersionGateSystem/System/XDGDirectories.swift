import VersionGateCore
/// The XDG Base Directory rules (v0.8): a variable holding an absolute path
/// wins; unset, empty or relative means the default under an absolute $HOME;
/// without either there is no such directory.
package enum XDGDirectories {
    package static func cacheHome(_ environment: [String: String]) -> String? {
        directory(environment, "XDG_CACHE_HOME", default: ".cache")
    }

    package static func stateHome(_ environment: [String: String]) -> String? {
        directory(environment, "XDG_STATE_HOME", default: ".local/state")
    }

    private static func directory(_ environment: [String: String], _ name: String, default relative: String) -> String? {
        if let value = environment[name], value.hasPrefix("/") { return value }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home.hasSuffix("/") ? home : home + "/") + relative
    }
}
