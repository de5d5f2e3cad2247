import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// Where a client's thresholds come from: a local document, or a remote
/// protocol behind RemoteSource. Every result comes from one snapshot.
/// A class: a check holds it as one reference (an existential of a class
/// copies by a retain, not through a value witness).
package protocol ConfigSource: AnyObject, Sendable {
    /// A human-readable name for messages and the result's "source" field.
    var name: String { get }
    /// The snapshot to decide with, or why there is none (the check fails open).
    func load(_ request: LoadRequest) -> Result<LoadedConfig, GateFailure>
    /// The last load's config while it is known to be current without a
    /// request (a cached local document: one stat); nil: call `load`.
    func current(files: any FileSystem) -> LoadedConfig?
    /// The protocol's own installation id (Firebase's FID), if it keeps one.
    func installationID(state: PrivateDirectory) -> String?
}

extension ConfigSource {
    package func installationID(state: PrivateDirectory) -> String? { nil }
    package func current(files: any FileSystem) -> LoadedConfig? { nil }
}

/// What a check knows when it asks for a config.
package struct LoadRequest: Sendable {
    /// The version being checked, trimmed; nil when invalid.
    package var appVersion: String?
    /// The client's `locale` option, if set.
    package var localeOption: String?
    package var environment: CheckEnvironment
    /// Wall clock, Unix seconds.
    package var now: Int64
    /// Where caches, state and documents are read and written.
    package var files: any FileSystem
    /// The boot clock, read only by the sources that age a cache by it.
    package var bootClock: @Sendable () -> BootInstant? = { nil }
    /// `bootClock` as RemoteSource read it once for this load.
    package var boot: BootInstant? = nil
    /// The check's one deadline, set at its entry: waiting for another
    /// check's fetch, the fetch and every request in it share it.
    package var deadline = Deadline(afterMilliseconds: TransportLimits().timeoutMs)
    /// Where the call's log lines go; nil when no callback listens.
    package var log: CallLog? = nil
    /// Where the call's helpers note their last request's route.
    package var trace: RequestTrace? = nil

    package init(appVersion: String? = nil, localeOption: String? = nil, environment: CheckEnvironment, now: Int64,
                 files: any FileSystem, bootClock: @escaping @Sendable () -> BootInstant? = { nil },
                 boot: BootInstant? = nil, deadline: Deadline = Deadline(afterMilliseconds: TransportLimits().timeoutMs),
                 log: CallLog? = nil, trace: RequestTrace? = nil) {
        (self.appVersion, self.localeOption, self.environment, self.now) = (appVersion, localeOption, environment, now)
        (self.files, self.bootClock, self.boot, self.deadline, self.log) = (files, bootClock, boot, deadline, log)
        self.trace = trace
    }

    /// BCP 47, e.g. "pt-BR" (computed only by the sources that send it).
    package var languageCode: String { BCP47.tag(of: localeOption ?? environment.localeName) }
}

/// A snapshot plus where it came from (the result's provenance). A class:
/// a cached local document hands the same one to every check, and each
/// result keeps it with one retain.
package final class LoadedConfig: Sendable {
    package typealias Origin = ConfigOrigin
    package let snapshot: GateSnapshot
    package let origin: Origin
    /// Seconds since the config was fetched (remote sources).
    package let ageSeconds: Int64?
    /// A fetch that failed although a config was still found (cache, defaults).
    package let fetchFailure: GateFailure?
    /// Something worth telling the operator (e.g. fetched without an auth token).
    package let note: String?

    package init(snapshot: GateSnapshot, origin: Origin, ageSeconds: Int64? = nil, fetchFailure: GateFailure? = nil,
                 note: String? = nil) {
        (self.snapshot, self.origin, self.ageSeconds, self.fetchFailure, self.note) =
            (snapshot, origin, ageSeconds, fetchFailure, note)
    }
}
