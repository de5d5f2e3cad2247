import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// A client's store URL: its options (store, app id, country, policy,
/// fallback) applied to the config's update URL (docs/design.md, "Where to update"). The last answer
/// is kept: judging each candidate URL costs ~19k instructions, and a
/// launcher asks with the same inputs every time. Not for the App Store,
/// whose answer also depends on a lookup that may change.
package final class StoreLocator: Sendable {
    private struct Inputs: Equatable {
        package let store: StoreKind
        package let appID, configURL, fallbackURL: String?
        package let country, configKey: String
        package let policy: StoreURLPolicy
    }
    private struct Answer {
        package let inputs: Inputs
        package let resolution: StoreResolution
    }
    private let last = Mutex<Answer?>(nil)

    /// The store's answer in storefront `country`, the App Store's lookup
    /// within what the call's `deadline` has left (`log`: its lines).
    package func resolve(_ options: ClientOptions, _ snapshot: GateSnapshot?, _ system: System, country: String,
                         deadline: Deadline, log: CallLog? = nil, trace: RequestTrace? = nil) -> StoreResolution {
        let inputs = Inputs(store: options.store, appID: options.appID, configURL: snapshot?.updateURLText,
                            fallbackURL: options.fallbackURL, country: country,
                            configKey: GateConfig.updateURLKey(platform: options.platform), policy: options.urlPolicy)
        let reusable = options.store != .appstore
        if reusable, let answer = last.withLock({ $0 }), answer.inputs == inputs { return answer.resolution }
        let resolver = StoreResolver(lookup: Self.lookup(options, system, deadline, log, trace), sandbox: system.sandbox.kind)
        let resolution = resolver.resolve(
            store: inputs.store, appID: inputs.appID, country: inputs.country, configURL: inputs.configURL,
            fallbackURL: inputs.fallbackURL, policy: inputs.policy, configKey: inputs.configKey)
        if reusable { last.withLock { $0 = Answer(inputs: inputs, resolution: resolution) } }
        return resolution
    }

    /// A store's URL for an app under the default options (vg_store_url).
    package static func url(store: StoreKind, appID: String) -> String? {
        var options = ClientOptions()
        options.store = store
        options.appID = appID
        let system = System()   // the environment as it is now
        return StoreLocator().resolve(options, nil, system, country: country(options, system.environment),
                                      deadline: Deadline(afterMilliseconds: options.timeoutMs)).url
    }

    /// The option, else the locale's region, else "us".
    package static func country(_ options: ClientOptions, _ environment: CheckEnvironment) -> String {
        country(options, region: BCP47.region(of: options.locale ?? environment.localeName))
    }

    package static func country(_ options: ClientOptions, region: String?) -> String {
        options.country ?? region.flatMap(StoreKind.countryCode) ?? "us"
    }

    /// The App Store's trackId from the channel's cache (docs/design.md,
    /// "One revalidating cache"); none when the administrator allows no network.
    private static func lookup(_ options: ClientOptions, _ system: System, _ deadline: Deadline,
                               _ log: CallLog?, _ trace: RequestTrace?) -> StoreResolver.TrackIDLookup? {
        guard options.store == .appstore, options.networkForbiddenBy == nil else { return nil }
        let asker = ChannelAsker(options: options, system: system)
        return { bundleID, country in
            asker.appStoreTrackID(bundleID: bundleID, country: country, deadline: deadline, log: log, trace: trace)
        }
    }
}
