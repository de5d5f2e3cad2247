import VersionGateCore
import Synchronization

/// A client's store URL: its options (store, app id, country, policy,
/// fallback) applied to the config's update URL (SPEC §7). The last answer
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

    package func resolve(_ options: ClientOptions, _ snapshot: GateSnapshot?, _ environment: CheckEnvironment)
        -> StoreResolution {
        let inputs = Inputs(store: options.store, appID: options.appID, configURL: snapshot?.updateURLText,
                            fallbackURL: options.fallbackURL, country: Self.country(options, environment),
                            configKey: GateConfig.updateURLKey(platform: options.platform), policy: options.urlPolicy)
        let reusable = options.store != .appstore
        if reusable, let answer = last.withLock({ $0 }), answer.inputs == inputs { return answer.resolution }
        let resolution = StoreResolver(lookup: Self.lookup(options, environment)).resolve(
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
        return StoreLocator().resolve(options, nil, .current()).url
    }

    /// The option, else the locale's region, else "us".
    package static func country(_ options: ClientOptions, _ environment: CheckEnvironment) -> String {
        options.country
            ?? BCP47.region(of: options.locale ?? environment.localeName).flatMap(StoreKind.countryCode)
            ?? "us"
    }

    private static func lookup(_ options: ClientOptions, _ environment: CheckEnvironment) -> AppStoreLookup? {
        guard options.store == .appstore else { return nil }
        var limits = TransportLimits()
        limits.timeoutMs = options.timeoutMs
        limits.caFile = options.tlsCAFile
        return AppStoreLookup(endpoint: options.itunesEndpoint, limits: limits,
                              cache: PrivateDirectory(base: XDGDirectories.cacheHome(environment.variables)))
    }
}
