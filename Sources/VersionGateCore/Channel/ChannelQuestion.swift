/// Which channel to ask, and about what (docs/design.md, "Asking the
/// channel"): the host picks it, the helper's request carries it, and the
/// answer's body is read by it.
package enum ChannelQuestion: Sendable, Equatable {
    case appStore(bundleID: String, country: String)
    case snap(name: String, architecture: String)
    case flathub(appID: String)
    case apt(package: String, architecture: String)

    /// The result's `channel`.
    package var channel: String {
        switch self {
        case .appStore: "appstore"
        case .snap: "snap"
        case .flathub: "flathub"
        case .apt: "apt"
        }
    }

    /// Where exactly, for people: what the reason names.
    package var detail: String {
        switch self {
        case .appStore(let bundleID, let country): "\(bundleID), \(country)"
        case .snap(let name, let architecture): "\(name), latest/stable, \(architecture)"
        case .flathub(let appID): appID
        case .apt(let package, let architecture): "\(package), \(architecture)"
        }
    }

    /// Its parts, channel first: the wire's and the cache key's form, spelt
    /// out (not a reflection of the enum, which a rename would change).
    package var parts: [String] {
        switch self {
        case .appStore(let bundleID, let country): [channel, bundleID, country]
        case .snap(let name, let architecture): [channel, name, architecture]
        case .flathub(let appID): [channel, appID]
        case .apt(let package, let architecture): [channel, package, architecture]
        }
    }

    /// The question `parts` spell; nil when they spell none.
    package init?(parts: [String]) {
        switch parts.first {
        case "appstore" where parts.count == 3: self = .appStore(bundleID: parts[1], country: parts[2])
        case "snap" where parts.count == 3: self = .snap(name: parts[1], architecture: parts[2])
        case "flathub" where parts.count == 2: self = .flathub(appID: parts[1])
        case "apt" where parts.count == 3: self = .apt(package: parts[1], architecture: parts[2])
        default: return nil
        }
    }

    /// The version a 200's body says this channel serves.
    package func version(from body: [UInt8]) -> Result<String, ChannelDocuments.Refusal> {
        switch self {
        case .appStore(let bundleID, _): ChannelDocuments.appStoreVersion(body, bundleID: bundleID)
        case .snap(_, let architecture):
            ChannelDocuments.snapVersion(body, architecture: architecture, track: "latest", risk: "stable")
        case .flathub: ChannelDocuments.flathubVersion(body)
        case .apt: .failure("apt is not asked over HTTP")
        }
    }

    /// What else the same body tells: the App Store's trackId, which makes
    /// the store URL (one exchange serves both).
    package func trackID(from body: [UInt8]) -> Int64? {
        guard case .appStore(let bundleID, _) = self else { return nil }
        return try? ChannelDocuments.appStoreTrackID(body, bundleID: bundleID).get()
    }
}
