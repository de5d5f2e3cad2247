/// Debian's (and the Snap store's) name of a machine's architecture.
package enum ChannelArchitecture {
    /// `uname -m` → amd64, arm64, armhf, i386, ppc64el, …; others as they are.
    package static func debian(machine: String) -> String {
        switch machine {
        case "x86_64": "amd64"
        case "aarch64", "arm64": "arm64"
        case "armv7l", "armv8l", "armv7": "armhf"
        case "i386", "i486", "i586", "i686": "i386"
        case "ppc64le": "ppc64el"
        default: machine
        }
    }
}
