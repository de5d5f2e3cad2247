import VersionGateCore
import VersionGatePlatform
import SystemShim
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The distribution package this app came from, when the operator did not
/// name it (docs/design.md, "Updating a distribution package"): the owner
/// of the running program in dpkg's or rpm's database, asked of
/// `dpkg-query -S` or `rpm -qf` at their system paths (never `$PATH`). The
/// owner counts only when its installed version is the version being
/// gated: `/usr/bin/python3` belongs to Python, not to the app it runs.
package enum PackageOwner {
    /// The package owning `path` whose upstream version is `version`; else
    /// why not, in a few words. Asked once per process, path and version:
    /// a blocked check with `program` set asks at every check, and each
    /// ask starts dpkg-query up to three times (docs/design.md, "The decision").
    /// `output` runs a program (the System's `programOutput`).
    package static func find(path: String, version: String,
                             output: (String, [String]) -> String?) -> Result<String, InPlaceUpdate.Refusal> {
        let key = path + "\u{0}" + version
        if let known = answers.withLock({ $0.first { $0.key == key }?.found }) { return known }
        let found = ask(path: path, version: version, output: output)
        answers.withLock { answers in
            if answers.count >= 8 { answers.removeFirst() }
            answers.append((key, found))
        }
        return found
    }

    /// The last few answers, by path and version.
    private static let answers = Mutex<[(key: String, found: Result<String, InPlaceUpdate.Refusal>)]>([])

    private static func ask(path: String, version: String,
                            output: (String, [String]) -> String?) -> Result<String, InPlaceUpdate.Refusal> {
        let owner: (name: String, version: String)
        if let dpkg = programs.dpkg {
            // A merged /usr: dpkg still records what a package ships under /bin or /lib.
            let aliases = path.hasPrefix("/usr/") ? [path, String(path.dropFirst(4))] : [path]
            var found: String?
            for alias in aliases where found == nil {
                found = output(dpkg, ["-S", alias]).flatMap { dpkgOwner($0, path: alias) }
            }
            guard let name = found,
                  let installed = output(dpkg, ["-W", "-f=${Version}", name]) else {
                return .failure(InPlaceUpdate.Refusal("no package owns \(path)"))
            }
            owner = (name, ChannelDocuments.upstream(installed))
        } else if let rpm = programs.rpm {
            guard let line = output(rpm, ["-qf", "--qf", "%{NAME} %{VERSION}\n", path])?.split(separator: "\n").first,
                  case let words = line.split(separator: " "), words.count == 2 else {
                return .failure(InPlaceUpdate.Refusal("no package owns \(path)"))
            }
            owner = (String(words[0]), String(words[1]))
        } else {
            return .failure(InPlaceUpdate.Refusal("neither dpkg nor rpm is here"))
        }
        guard Version.compare(owner.version, version) == 0 else {
            return .failure(InPlaceUpdate.Refusal("\(path) belongs to \(owner.name) \(owner.version), not to this app's "
                                                  + "version \(version) (option distro_package names the app's package)"))
        }
        return .success(owner.name)
    }

    private static let programs = (dpkg: executable(MachinePaths.dpkgQuery), rpm: executable(MachinePaths.rpm))

    private static func executable(_ path: String) -> String? { access(path, X_OK) == 0 ? path : nil }

    /// `dpkg-query -S`'s owner of `path`: "name[:arch][, other]: path"
    /// (diversion lines are not owners).
    package static func dpkgOwner(_ text: String, path: String) -> String? {
        for line in text.split(separator: "\n") where line.hasSuffix(": " + path) && !line.hasPrefix("diversion by ") {
            let owners = line.dropLast(path.count + 2)
            if let name = owners.split(separator: ",").first?.split(separator: ":").first { return String(name) }
        }
        return nil
    }
}
