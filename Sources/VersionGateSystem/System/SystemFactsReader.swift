import SystemShim
import VersionGateCore
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// This machine's values for the requirement clauses (docs/design.md,
/// "Requirements"): glibc from `gnu_get_libc_version`, the kernel and the
/// architecture from `uname`, the OS from os-release.
package enum SystemFactsReader {
    /// `/etc/os-release`, else `/usr/lib/os-release` (os-release(5)).
    package static let osReleasePaths = ["/etc/os-release", "/usr/lib/os-release"]

    /// This process's, read on first use (only a snapshot with requirements
    /// asks): glibc, the kernel and the machine do not change under a
    /// running process, and an OS upgrade restarts the session.
    package static let current = read(files: POSIXFiles())

    package static func read(files: any FileSystem) -> SystemFacts {
        var facts = SystemFacts()
        facts.glibc = String(validatingCString: vg_system_libc_version())
        var names = utsname()
        if uname(&names) == 0 {
            facts.kernel = field(&names.release).flatMap(SystemFacts.kernelVersion(release:))
            facts.arch = field(&names.machine)
        }
        for path in osReleasePaths {
            guard let bytes = try? files.read(path, maxBytes: 65_536, trust: .document).bytes else { continue }
            let values = OSRelease.parse(bytes)
            facts.osIDs = OSRelease.ids(values)
            facts.osVersion = values["VERSION_ID"]
            break
        }
        return facts
    }

    /// A NUL-terminated utsname field (a fixed C array) as a String.
    private static func field<T>(_ tuple: inout T) -> String? {
        withUnsafeBytes(of: &tuple) { raw in
            String(validating: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
