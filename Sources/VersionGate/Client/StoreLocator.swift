/// A client's store URL: its options (store, app id, country, policy,
/// fallback) applied to the config's update URL (SPEC §7).
enum StoreLocator {
    static func resolve(_ options: ClientOptions, _ snapshot: GateSnapshot?, _ environment: CheckEnvironment)
        -> StoreResolution {
        StoreResolver(lookup: lookup(options, environment)).resolve(
            store: options.store, appID: options.appID, country: country(options, environment),
            configURL: snapshot?.updateURLText, fallbackURL: options.fallbackURL, policy: options.urlPolicy,
            configKey: GateConfig.updateURLKey(platform: options.platform))
    }

    /// The option, else the locale's region, else "us".
    static func country(_ options: ClientOptions, _ environment: CheckEnvironment) -> String {
        options.country
            ?? BCP47.region(of: options.locale ?? environment.localeName).flatMap(AppStoreLookup.countryCode)
            ?? "us"
    }

    private static func lookup(_ options: ClientOptions, _ environment: CheckEnvironment) -> AppStoreLookup? {
        guard options.store == .appstore else { return nil }
        var limits = TransportLimits()
        limits.timeoutMs = options.timeoutMs
        limits.caFile = options.tlsCAFile
        return AppStoreLookup(endpoint: options.itunesEndpoint, limits: limits,
                              cache: StoreDirectory(base: XDGDirectories.cacheHome(environment.variables)))
    }
}
