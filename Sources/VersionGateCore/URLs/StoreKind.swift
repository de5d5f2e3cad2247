/// Where a launcher's app is published (the `store` option), and the pure
/// URL building for each store (docs/design.md, "Where to update"). No I/O: the App Store's trackId is
/// looked up by the system layer and passed in.
package enum StoreKind: String, Sendable, CaseIterable {
    /// Apple's App Store; the app id is the bundle id.
    case appstore
    /// Flathub / any AppStream software centre; the app id is the component id.
    case flathub
    /// The Snap Store; the app id is the snap name.
    case snap
    /// No store: only an explicit URL (config `update_url_<platform>`, else
    /// the launcher's `fallback_url`).
    case url
}

/// A store's own links: what to open, and an https page to open instead
/// when no handler exists for the primary URL's scheme.
package struct StoreLinks: Sendable, Equatable {
    package var primary: String
    package var webFallback: String?
}

extension StoreKind {
    /// This store's links for `appID`, or why there are none (an invalid id;
    /// `.url` has no links of its own). `trackID` is the App Store's numeric
    /// id when known; without it the App Store link is the lookup form.
    package func links(appID: String, trackID: Int64? = nil) -> Result<StoreLinks, StoreURLPolicy.Refusal> {
        switch self {
        case .flathub:
            if let why = AppID.componentIDRefusal(appID) { return .failure(.init(reason: "app_id: \(why)")) }
            let id = PercentEncoding.encoded(appID)
            return .success(StoreLinks(primary: "appstream:\(id)", webFallback: "https://flathub.org/apps/\(id)"))
        case .snap:
            if let why = AppID.snapNameRefusal(appID) { return .failure(.init(reason: "app_id: \(why)")) }
            let name = PercentEncoding.encoded(appID)
            return .success(StoreLinks(primary: "snap://\(name)", webFallback: "https://snapcraft.io/\(name)"))
        case .appstore:
            if let why = AppID.bundleIDRefusal(appID) { return .failure(.init(reason: "app_id: bundle \(why)")) }
            if let trackID, trackID > 0 {
                return .success(StoreLinks(primary: "itms-apps://itunes.apple.com/app/id\(trackID)",
                                           webFallback: "https://apps.apple.com/app/id\(trackID)"))
            }
            // No web page lists an app by bundle id, so no web fallback here.
            return .success(StoreLinks(
                primary: "itms-apps://itunes.apple.com/lookup?bundleId=\(PercentEncoding.encoded(appID))",
                webFallback: nil))
        case .url:
            return .failure(.init(reason: "store \"url\" has no links of its own"))
        }
    }
}

extension StoreKind {
    /// An App Store storefront: two ASCII letters → lower case (the URL
    /// form); nil otherwise.
    package static func countryCode(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 2, bytes.allSatisfy(ASCII.isLetter) else { return nil }
        return text.lowercased()
    }
}
