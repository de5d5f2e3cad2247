import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// What an update in place found when there was nothing newer than the
/// running version (docs/design.md, "Asking the channel"): the Flatpak
/// portal's NOTHING_NEW for a commit, PackageKit's for a package, snapd's
/// for a snap. Written to the channel cache at Update, read by the next
/// launches (for cache_ttl_s, at least an hour: the launcher starts again
/// at once) before any channel is asked.
package struct NothingNewerRecord: Sendable {
    package let options: ClientOptions
    package let system: System

    package init(options: ClientOptions, system: System) {
        (self.options, self.system) = (options, system)
    }

    /// Whose "nothing newer" it was, and how the key starts.
    package enum Channel: String, CaseIterable, Sendable {
        case package = "package nothing new"
        case snap = "snap nothing new"

        package func answer(package: String?, served: String) -> ChannelAnswer {
            switch self {
            case .package:
                ChannelAnswer(channel: "package", detail: "PackageKit has nothing newer for \(package ?? "its package")",
                              served: served)
            case .snap:
                ChannelAnswer(channel: "snap", detail: "snapd has nothing newer for \(package ?? "the snap") in its channel",
                              served: served)
            }
        }
    }

    /// The portal's NOTHING_NEW for this sandbox's `commit`: its remote
    /// serves nothing newer than `version` (the version that ran it). The
    /// answer is returned as well: the client that updated decides from it
    /// in memory; the file is for the next launches.
    package func recordFlatpak(commit: String, version: String, now: Int64) -> ChannelAnswer {
        write(key: Self.flatpakKey(commit), served: version, note: nil, now: now)
        return Self.flatpakAnswer(commit: commit, served: version)
    }

    /// The answer an earlier launch's NOTHING_NEW left for the running
    /// commit, if any: it comes before every other channel's (it is this
    /// installation's own remote).
    package func flatpakAnswer(commit: String, now: Int64) -> ChannelAnswer? {
        read(key: Self.flatpakKey(commit), now: now).map { Self.flatpakAnswer(commit: commit, served: $0.served) }
    }

    /// PackageKit had nothing newer than `version` for `package` (the
    /// app's `distro_package`, or the owner of its program), or snapd for
    /// the snap `package` in the channel it tracks: kept for this app and
    /// version, and returned as well.
    package func record(_ channel: Channel, package: String, version: String, now: Int64) -> ChannelAnswer {
        write(key: channel.rawValue + Self.keyApp(options) + version, served: version, note: package, now: now)
        return channel.answer(package: package, served: version)
    }

    /// The answer an earlier launch's "nothing newer" (PackageKit's, else
    /// snapd's) left for this app at `version`, if any; `keyApp` is `keyApp(options)`'s.
    package func answer(keyApp: String, version: String, now: Int64) -> ChannelAnswer? {
        for channel in Channel.allCases {
            if let known = read(key: channel.rawValue + keyApp + version, now: now) {
                return channel.answer(package: known.note, served: known.served)
            }
        }
        return nil
    }

    /// This app (its source and id), the version to follow: the launch
    /// after Update names no program, so the key does not depend on one.
    package static func keyApp(_ options: ClientOptions) -> String {
        " \(options.assignments["source"] ?? "") \(options.appID ?? "") "
    }

    private static func flatpakAnswer(commit: String, served: String) -> ChannelAnswer {
        ChannelAnswer(channel: ChannelAnswer.flatpakRemote,
                      detail: "its remote has nothing newer than commit \(commit.prefix(12))", served: served)
    }

    private static func flatpakKey(_ commit: String) -> String { "flatpak nothing new \(commit)" }

    private var cache: PrivateDirectory? { PrivateDirectory(base: system.environment.cacheHome, files: system.files) }

    /// The entry's `problem` field holds the package's name (`note`).
    private func write(key: String, served: String, note: String?, now: Int64) {
        var entry = ChannelEntry(key: key, architecture: ChannelChoice.architecture)
        (entry.served, entry.confirmedAt, entry.problem) = (served, now, note)
        ChannelFiles.write(cache, entry)
    }

    private func read(key: String, now: Int64) -> (served: String, note: String?)? {
        guard let cache, let entry = ChannelFiles.read(cache, key: key), let served = entry.served,
              let age = entry.age(at: now), age < max(options.cacheTTLSeconds, 3600) else { return nil }
        return (served, entry.problem)
    }
}
