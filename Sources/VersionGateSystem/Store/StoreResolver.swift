import VersionGateCore
/// Where to update, decided once per check (docs/design.md, "Where to update").
package struct StoreResolution: Sendable, Equatable {
    /// What to show and open; nil when no URL passes the policy (a valid answer).
    package var url: String?
    /// An https page to open instead when no handler exists for `url`'s scheme.
    package var webFallback: String?
    /// Why something was refused or fell back; nil when the first choice won.
    package var note: String?
    /// Why the config's URL was refused (nil when absent or used): a config
    /// problem the result may report on its own, e.g. as VG_ECONFIG.
    package var configRefusal: String?
    /// Whether the policy refused any candidate (then `note` says which).
    package var refusedSome = false
}

/// Picks the store URL. Candidates are tried in order and the first one the
/// policy accepts wins; every URL returned has passed the policy, here and
/// now, whatever produced it.
///
/// - `url` store: the config's `update_url_<platform>`, then the launcher's
///   `fallback_url`.
/// - flathub / snap / appstore: the config's URL (operators may redirect
///   remotely), then the store's own URL, then its web page, then
///   `fallback_url`. An invalid app id removes only the store's own links:
///   the config URL and `fallback_url` do not depend on it.
package struct StoreResolver {
    /// The App Store's trackId for a bundle id and country, or why there
    /// is none (ChannelAsker.appStoreTrackID); nil = no network (the
    /// lookup-form URL is used).
    package typealias TrackIDLookup = (_ bundleID: String, _ country: String) -> (trackID: Int64?, reason: String?)
    package var lookup: TrackIDLookup?
    /// Inside a sandbox https candidates come first (see Sandbox).
    package var sandbox: Sandbox.Kind?

    package init(lookup: TrackIDLookup? = nil, sandbox: Sandbox.Kind?) {
        self.lookup = lookup
        self.sandbox = sandbox
    }

    /// - Parameters:
    ///   - configURL: the config's `update_url_<platform>` (nil or empty = none).
    ///   - fallbackURL: the launcher's `fallback_url` option.
    ///   - configKey: the config key named in notes, e.g. `update_url_linux`.
    package func resolve(store: StoreKind, appID: String?, country: String, configURL: String?, fallbackURL: String?,
                 policy: StoreURLPolicy, configKey: String = "update_url") -> StoreResolution {
        var notes: [String] = []
        var candidates: [(label: String, url: String)] = []
        if let configURL, !configURL.isEmpty { candidates.append((configKey, configURL)) }

        var links: StoreLinks?
        if store != .url {
            if let appID, !appID.isEmpty {
                switch storeLinks(store, appID: appID, country: country, policy: policy, notes: &notes) {
                case .success(let made): links = made
                case .failure(let refusal): notes.append(refusal.reason)
                }
            } else {
                notes.append("app_id is not set")
            }
        }
        if let links {
            candidates.append(("\(store.rawValue) URL", links.primary))
            if let web = links.webFallback { candidates.append(("\(store.rawValue) web page", web)) }
        }
        if let fallbackURL, !fallbackURL.isEmpty { candidates.append(("fallback_url", fallbackURL)) }

        if let sandbox {
            let web = candidates.filter { $0.url.hasPrefix("https://") }
            if !web.isEmpty && web.count < candidates.count {
                candidates = web + candidates.filter { !$0.url.hasPrefix("https://") }
                notes.append("inside \(sandbox.rawValue): https pages first (the portal opens any URI)")
            }
        }

        var configRefusal: String?
        for (index, candidate) in candidates.enumerated() {
            if let why = policy.refusal(of: candidate.url) {
                notes.append("\(candidate.label) refused: \(why)")
                if candidate.label == configKey { configRefusal = why }
                continue
            }
            // The store's web page backs up a non-https choice; never itself.
            let web = links?.webFallback.flatMap { policy.refusal(of: $0) == nil && $0 != candidate.url ? $0 : nil }
            if index > 0 || !notes.isEmpty { notes.append("using \(OneLine.quoted(candidate.url))") }
            return StoreResolution(url: candidate.url, webFallback: web, note: Self.joined(notes),
                                   configRefusal: configRefusal, refusedSome: index > 0)
        }
        if !notes.isEmpty { notes.append("no store URL") }
        return StoreResolution(url: nil, webFallback: nil, note: Self.joined(notes), configRefusal: configRefusal,
                               refusedSome: !candidates.isEmpty)
    }

    /// The store's links; for the App Store with the trackId when a lookup
    /// can give one and its URL could be used at all (no request otherwise).
    private func storeLinks(_ store: StoreKind, appID: String, country: String, policy: StoreURLPolicy,
                            notes: inout [String]) -> Result<StoreLinks, StoreURLPolicy.Refusal> {
        guard store == .appstore else { return store.links(appID: appID) }
        if case .failure(let refusal) = store.links(appID: appID) { return .failure(refusal) }
        let usable = policy.refusal(of: "itms-apps://itunes.apple.com/app/id1") == nil
            || policy.refusal(of: "https://apps.apple.com/app/id1") == nil
        guard usable else { return store.links(appID: appID) }
        guard let lookup else {
            notes.append("no iTunes lookup configured")
            return store.links(appID: appID)
        }
        let answer = lookup(appID, country)
        if answer.trackID == nil { notes.append(answer.reason ?? "iTunes lookup gave no trackId") }
        return store.links(appID: appID, trackID: answer.trackID)
    }

    private static func joined(_ notes: [String]) -> String? {
        notes.isEmpty ? nil : join(notes, separator: "; ")
    }
}
