import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// Asks the user's own channel what it serves this system, before a
/// MANDATORY decision blocks (docs/design.md, "Asking the channel"). Never
/// fails: an answer without a version says why, and the operator's word
/// then stands. A known version is cached for `cache_ttl_s`.
package struct ChannelAsker: Sendable {
    /// Where this app comes from, and how to ask it.
    package enum Question: Sendable, Equatable {
        case appStore(bundleID: String, country: String)
        case snap(name: String, architecture: String)
        case flathub(appID: String)
        case apt(package: String, architecture: String)
    }

    package let options: ClientOptions
    package let environment: CheckEnvironment
    package let files: any FileSystem

    package init(options: ClientOptions, environment: CheckEnvironment, files: any FileSystem) {
        (self.options, self.environment, self.files) = (options, environment, files)
    }

    /// Whether any channel could be known: options that name one, a snap,
    /// or a Flatpak (its remote's answer at Update). Cheap: read first.
    package static func mayAsk(_ options: ClientOptions, _ environment: CheckEnvironment) -> Bool {
        if options.distroPackage != nil || InPlaceUpdate.isFlatpak { return true }
        switch options.store {   // a switch: this enum's != is a generic call
        case .url: return environment.isLive ? Self.insideASnap : environment.isSet("SNAP_INSTANCE_NAME") || environment.isSet("SNAP_NAME")
        case .flathub, .snap, .appstore: return true
        }
    }

    /// Read once: a process does not enter or leave a snap.
    private static let insideASnap = CheckEnvironment.current().isSet("SNAP_INSTANCE_NAME")
        || CheckEnvironment.current().isSet("SNAP_NAME")

    /// The channel to ask; nil when none is known (then nothing is asked).
    /// `distro_package` first (the operator named the package), then a snap
    /// (inside one, or `store=snap`), then `store=flathub` and `store=appstore`.
    package func question(country: String) -> Question? {
        let machine = SystemFactsReader.current.arch ?? ""
        let architecture = ChannelArchitecture.debian(machine: machine)
        if let package = options.distroPackage { return .apt(package: package, architecture: architecture) }
        if let name = snapName {
            return .snap(name: name, architecture: environment.value("SNAP_ARCH") ?? architecture)
        }
        switch options.store {
        case .flathub:
            return (options.appID ?? environment.value("FLATPAK_ID")).map { .flathub(appID: $0) }
        case .appstore:
            return options.appID.map { .appStore(bundleID: $0, country: country) }
        case .snap, .url:
            return nil
        }
    }

    /// The store's name of this snap: inside one, `SNAP_INSTANCE_NAME`
    /// without its instance key (`name_key` of a parallel install);
    /// outside, `app_id` with `store=snap`.
    private var snapName: String? {
        if let instance = environment.value("SNAP_INSTANCE_NAME") ?? environment.value("SNAP_NAME"), !instance.isEmpty {
            return String(instance.prefix { $0 != "_" })
        }
        return options.store == .snap ? options.appID : nil
    }

    /// What `question`'s channel serves, from the cache or one question
    /// within `deadline`.
    package func ask(_ question: Question, deadline: Deadline, now: Int64, log: CallLog?) -> ChannelAnswer {
        let (channel, detail) = Self.names(question)
        let cache = PrivateDirectory(base: environment.cacheHome, files: files)
        let key = "\(question)"
        if let known = readCache(cache, key: key, now: now) {
            log?.add(.debug, "channel \(channel): cached answer \(known)")
            return ChannelAnswer(channel: channel, detail: detail, served: known)
        }
        let served: Result<String, ChannelDocuments.Refusal>
        switch question {
        case .apt(let package, let architecture):
            served = ChannelDocuments.aptCandidate(AptLists.versions(of: package, architecture: architecture, files: files),
                                                   package: package, architecture: architecture)
        default:
            guard deadline.remainingMilliseconds > 0 else {
                return ChannelAnswer(channel: channel, detail: detail, problem: "no time left to ask: the deadline passed")
            }
            served = exchange(question, deadline: deadline).flatMap { body in Self.version(question, body) }
        }
        switch served {
        case .failure(let refusal):
            log?.add(.info, "channel \(channel) (\(detail)) could not be asked: \(refusal.reason); the minimum stands")
            return ChannelAnswer(channel: channel, detail: detail, problem: refusal.reason)
        case .success(let text):
            let answer = ChannelAnswer(channel: channel, detail: detail, served: text)
            if let version = answer.version { writeCache(cache, key: key, version: version, now: now) }
            log?.add(.info, "channel \(channel) (\(detail)) serves \(text)")
            return answer
        }
    }

    /// A body's size limit: far above any real answer, far below a hostile one.
    package static let maxBodyBytes = 1 << 20

    /// The question's one HTTP exchange, made in the helper; the body of a 200.
    private func exchange(_ question: Question, deadline: Deadline) -> Result<[UInt8], ChannelDocuments.Refusal> {
        let request: HTTPRequest
        switch question {
        case .appStore(let bundleID, let country):
            request = HTTPRequest(url: "\(options.itunesEndpoint)/lookup?bundleId=\(PercentEncoding.encoded(bundleID))"
                                  + "&country=\(country)")
        case .snap(let name, _):
            request = HTTPRequest(url: "\(options.snapStoreEndpoint)/v2/snaps/info/\(PercentEncoding.encoded(name))"
                                  + "?fields=version", headers: [("Snap-Device-Series", "16")])
        case .flathub(let appID):
            request = HTTPRequest(url: "\(options.flathubEndpoint)/api/v2/appstream/\(PercentEncoding.encoded(appID))")
        case .apt:
            return .failure(ChannelDocuments.Refusal("apt is not asked over HTTP"))
        }
        var limits = TransportLimits()
        limits.timeoutMs = deadline.remainingMilliseconds
        limits.maxBodyBytes = Self.maxBodyBytes
        limits.caFile = options.tlsCAFile
        do throws(TransportError) {
            let response = try HelperTransport().send(request, limits: limits)
            guard response.status == 200 else {
                return .failure(ChannelDocuments.Refusal("HTTP \(response.status)"
                                                         + (response.status == 404 ? " (not in the store)" : "")))
            }
            return .success(response.body)
        } catch {
            return .failure(ChannelDocuments.Refusal(error.message))
        }
    }

    private static func version(_ question: Question, _ body: [UInt8]) -> Result<String, ChannelDocuments.Refusal> {
        switch question {
        case .appStore(let bundleID, _): ChannelDocuments.appStoreVersion(body, bundleID: bundleID)
        case .snap(_, let architecture):
            ChannelDocuments.snapVersion(body, architecture: architecture, track: "latest", risk: "stable")
        case .flathub: ChannelDocuments.flathubVersion(body)
        case .apt: .failure(ChannelDocuments.Refusal("apt is not asked over HTTP"))
        }
    }

    /// The result's `channel`, and the detail the reason names.
    private static func names(_ question: Question) -> (String, String) {
        switch question {
        case .appStore(let bundleID, let country): ("appstore", "\(bundleID), \(country)")
        case .snap(let name, let architecture): ("snap", "\(name), latest/stable, \(architecture)")
        case .flathub(let appID): ("flathub", appID)
        case .apt(let package, let architecture): ("apt", "\(package), \(architecture)")
        }
    }

    // MARK: A Flatpak's own remote, at Update time

    /// What the portal's NOTHING_NEW told about this sandbox's commit: its
    /// remote serves nothing newer than `version` (the version that ran it).
    /// Kept like a channel's answer, for cache_ttl_s (at least an hour: the
    /// launcher starts again at once).
    package func recordNothingNew(commit: String, version: String, now: Int64) {
        let entry = JSONValue.object(["key": .string(Self.flatpakKey(commit)), "version": .string(version),
                                      "fetched_at": .string(String(now))])
        PrivateDirectory(base: environment.cacheHome, files: files)?
            .write(Self.fileName(Self.flatpakKey(commit)), entry.encoded())
    }

    /// The answer NOTHING_NEW left for the running commit, if any: it comes
    /// before every other channel's (it is this installation's own remote).
    package func flatpakRemoteAnswer(commit: String, now: Int64) -> ChannelAnswer? {
        let key = Self.flatpakKey(commit)
        guard let served = readCache(PrivateDirectory(base: environment.cacheHome, files: files), key: key, now: now,
                                     ttl: max(options.cacheTTLSeconds, 3600)) else { return nil }
        return ChannelAnswer(channel: "flatpak", detail: "its remote has nothing newer than commit \(commit.prefix(12))",
                             served: served)
    }

    private static func flatpakKey(_ commit: String) -> String { "flatpak nothing new \(commit)" }

    // MARK: The cache: a known answer, for cache_ttl_s

    private static func fileName(_ key: String) -> String { "channel-\(fnv1a64Hex(key)).json" }

    private func readCache(_ cache: PrivateDirectory?, key: String, now: Int64, ttl: Int64? = nil) -> String? {
        guard let bytes = cache?.read(Self.fileName(key), maxBytes: 4096), let value = try? JSONValue.decode(bytes),
              case .string(key)? = value["key"], case .string(let version)? = value["version"],
              case .string(let at)? = value["fetched_at"], let fetchedAt = Int64(decimal: at),
              now >= fetchedAt, now - fetchedAt < ttl ?? options.cacheTTLSeconds else { return nil }
        return version
    }

    private func writeCache(_ cache: PrivateDirectory?, key: String, version: String, now: Int64) {
        guard options.cacheTTLSeconds > 0 else { return }
        let entry = JSONValue.object(["key": .string(key), "version": .string(version), "fetched_at": .string(String(now))])
        cache?.write(Self.fileName(key), entry.encoded())
    }
}
