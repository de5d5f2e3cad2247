import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// The state behind `update_confirmed` (docs/design.md, "Events"): one
/// PromptRecord per source and platform under `$XDG_STATE_HOME/versiongate/`
/// (`confirm-<key>`, through PrivateDirectory: the user's own 0700
/// directory, no symlinks, atomic replace). Each client keeps one: the file
/// is read at most once per source and platform, then known.
///
/// A record is claimed by renaming it aside: of every process and client
/// that sees the update, exactly the one whose rename succeeds emits it,
/// then removes what it claimed. A killed claimer leaves debris that the
/// next write of the record removes.
package final class UpdateConfirmations: Sendable {
    /// By file path: the record, or nil when there was none (or it is claimed).
    private let known = Mutex<[String: PromptRecord?]>([:])
    private static let maxFileBytes = 512

    package init() {}

    private struct Place {
        let directory: PrivateDirectory
        let name: String
        var path: String { directory.filePath(name) }
    }

    private static func place(source: String, platform: String, _ system: System) -> Place? {
        guard let directory = PrivateDirectory(base: system.environment.stateHome, files: system.files) else {
            return nil
        }
        return Place(directory: directory, name: "confirm-" + fnv1a64Hex(source + "\u{0}" + platform))
    }

    private func record(at place: Place) -> PromptRecord? {
        if let known = known.withLock({ $0[place.path] }) { return known }
        let record = place.directory.read(place.name, maxBytes: Self.maxFileBytes).flatMap(PromptRecord.init(bytes:))
        known.withLock { $0[place.path] = .some(record) }
        return record
    }

    /// The record that `current` confirms, claimed for this caller alone;
    /// nil when there is none, it is not confirmed, or another claimed it.
    package func claim(source: String, platform: String, current: String, _ system: System) -> PromptRecord? {
        guard let place = Self.place(source: source, platform: platform, system),
              let seen = record(at: place), seen.isConfirmed(by: current) else { return nil }
        known.withLock { $0[place.path] = .some(nil) }
        var random = SystemRandom()
        let aside = "." + place.name + ".claimed-" + String(UInt64.random(in: .min ... .max, using: &random), radix: 36)
        guard place.directory.files.rename(place.path, to: aside) else { return nil }
        defer { place.directory.remove(aside) }
        // What was claimed, which another process may have replaced since it was read.
        guard let claimed = place.directory.read(aside, maxBytes: Self.maxFileBytes).flatMap(PromptRecord.init(bytes:))
        else { return nil }
        guard claimed.isConfirmed(by: current) else {
            // A newer prompt recorded meanwhile: it stays for a newer version to confirm.
            if place.directory.write(place.name, claimed.bytes) { known.withLock { $0[place.path] = .some(claimed) } }
            return nil
        }
        return claimed
    }

    /// Records that `version` was prompted with `status` at `now`, unless it
    /// already is (its first prompt is the one that counts).
    package func recordPrompt(source: String, platform: String, version: String, status: GateStatus, now: Int64,
                              _ system: System) {
        guard status != .upToDate, let place = Self.place(source: source, platform: platform, system) else { return }
        if let seen = record(at: place), seen.from == version { return }
        let record = PromptRecord(from: version, promptedAt: now, statusThen: status)
        if place.directory.write(place.name, record.bytes) { known.withLock { $0[place.path] = .some(record) } }
    }
}
