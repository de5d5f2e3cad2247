/// What each channel's answer says it serves (docs/design.md, "Asking the
/// channel"), pure: a body in, the version text or the reason there is
/// none out. The caller turns the text into a ChannelAnswer, which checks
/// that it is a version.
package enum ChannelDocuments {
    /// The App Store lookup's first result's `version` (protocols: the
    /// iTunes Lookup API), for the bundle id asked (compared as Apple does,
    /// without case).
    package static func appStoreVersion(_ body: [UInt8], bundleID: String) -> Result<String, Refusal> {
        guard case .array(let results)? = json(body)?["results"] else { return .failure("no results array") }
        guard let first = results.first else { return .failure("no app with this bundle id in this storefront") }
        if case .string(let named)? = first["bundleId"], named.lowercased() != bundleID.lowercased() {
            return .failure("the result is for another bundle id")
        }
        guard case .string(let version)? = first["version"] else { return .failure("the result has no version") }
        return .success(version)
    }

    /// Larger than any real App Store id (about 10 digits today), far below
    /// 2^53, where a JSON number read as a Double stops being exact.
    package static let maxTrackID: Int64 = 999_999_999_999

    /// The same lookup's first result's `trackId`: a whole number
    /// 1...maxTrackID (not 1.5, -3, 1e30, "123"). A result naming another
    /// bundle id is refused (Apple compares bundle ids case-insensitively).
    package static func appStoreTrackID(_ body: [UInt8], bundleID: String) -> Result<Int64, Refusal> {
        guard let value = json(body) else { return .failure("body is not JSON") }
        guard case .array(let results)? = value["results"] else { return .failure("no results array") }
        guard let first = results.first else { return .failure("no app with this bundle id in this storefront") }
        if case .string(let named)? = first["bundleId"], named.lowercased() != bundleID.lowercased() {
            return .failure("result is for another bundle id")
        }
        guard case .number(let number)? = first["trackId"], let id = Int64(exactly: number),
              (1...maxTrackID).contains(id) else {
            return .failure("trackId is missing or not a positive whole number")
        }
        return .success(id)
    }

    /// The Snap store's `/v2/snaps/info/NAME`: the `channel-map` entry for
    /// `architecture` on `track`/`risk`.
    package static func snapVersion(_ body: [UInt8], architecture: String, track: String, risk: String)
        -> Result<String, Refusal> {
        guard case .array(let entries)? = json(body)?["channel-map"] else { return .failure("no channel-map") }
        for entry in entries {
            guard case .string(architecture)? = entry["channel"]?["architecture"],
                  case .string(track)? = entry["channel"]?["track"],
                  case .string(risk)? = entry["channel"]?["risk"] else { continue }
            guard case .string(let version)? = entry["version"] else { return .failure("its entry has no version") }
            return .success(version)
        }
        return .failure(Refusal("no \(track)/\(risk) release for \(architecture)"))
    }

    /// Flathub's `/api/v2/appstream/APP_ID`: the greatest version among its
    /// stable releases (a release without a type is stable, as in AppStream).
    package static func flathubVersion(_ body: [UInt8]) -> Result<String, Refusal> {
        guard case .array(let releases)? = json(body)?["releases"] else { return .failure("no releases") }
        var versions: [String] = []
        for release in releases {
            if case .string(let type)? = release["type"], type != "stable" { continue }
            if case .string(let version)? = release["version"] { versions.append(version) }
        }
        guard let first = versions.first else { return .failure("no stable release") }
        return .success(greatest(versions) ?? first)
    }

    /// apt's lists (`Packages` files): the greatest upstream version of
    /// `package` for `architecture` (or `all`) in `list`'s stanzas. A
    /// Debian version's epoch and revision are left out: the gate compares
    /// the app's own version (`2:1.0.30-1` serves 1.0.30). A list is tens
    /// of megabytes: only the stanzas of `package` are parsed.
    package static func aptVersions(_ list: [UInt8], package: String, architecture: String) -> [String] {
        let wanted = Array("Package: \(package)".utf8)
        var versions: [String] = []
        var start = 0, inStanza = false
        var arch: String?, version: String?
        func finish() {
            if inStanza, let arch, arch == architecture || arch == "all", let version { versions.append(upstream(version)) }
            (inStanza, arch, version) = (false, nil, nil)
        }
        while start < list.count {
            let end = list[start...].firstIndex(of: UInt8(ascii: "\n")) ?? list.count
            let line = list[start..<end]
            if line.isEmpty {
                finish()
            } else if line.elementsEqual(wanted) {
                finish()
                inStanza = true
            } else if inStanza {
                let text = String(decoding: line, as: UTF8.self)
                if text.hasPrefix("Architecture:") { arch = ASCII.trimmingBlanks(text.dropFirst("Architecture:".count)) }
                if text.hasPrefix("Version:") { version = ASCII.trimmingBlanks(text.dropFirst("Version:".count)) }
            }
            start = end + 1
        }
        finish()
        return versions
    }

    /// The greatest of the versions all lists serve.
    package static func aptCandidate(_ versions: [String], package: String, architecture: String) -> Result<String, Refusal> {
        guard let first = versions.first else { return .failure(Refusal("no \(package) for \(architecture) in apt's lists")) }
        return .success(greatest(versions) ?? first)
    }

    /// `[epoch:]upstream[-revision]` → upstream.
    package static func upstream(_ debian: String) -> String {
        var text = Substring(debian)
        if let colon = text.firstIndex(of: ":") { text = text[text.index(after: colon)...] }
        if let dash = text.lastIndex(of: "-") { text = text[..<dash] }
        return String(text)
    }

    /// Why a body names no version.
    package struct Refusal: Error, Sendable, Equatable, ExpressibleByStringLiteral {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
        package init(stringLiteral reason: String) { self.reason = reason }
    }

    private static func json(_ body: [UInt8]) -> JSONValue? { try? JSONValue.decode(body) }

    /// The greatest valid version; nil when none is valid.
    private static func greatest(_ versions: [String]) -> String? {
        var best: String?
        for version in versions where Version.compare(version, version) != nil {
            if let current = best, let order = Version.compare(version, current), order <= 0 { continue }
            best = version
        }
        return best
    }
}
