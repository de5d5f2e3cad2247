import VersionGateCore

extension HelperRequest {
    /// Update this app in place, by the kind of install it is.
    package struct Update: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case flatpak
            /// The AppImage file at `path` (`$APPIMAGE`).
            case appImage(path: String)
            /// The installed distribution package `name`, through PackageKit.
            case package(name: String)
            /// The snap `name`, refreshed by snapd (its tracked channel, or `channel`).
            case snap(name: String, channel: String?)

            /// Its name in events and messages.
            package var name: String {
                switch self {
                case .flatpak: "flatpak"
                case .appImage: "appimage"
                case .package: "package"
                case .snap: "snap"
                }
            }
        }
        /// The longest an update may run before the helper gives up on it.
        package static let defaultMaxSeconds = 3600

        package var kind: Kind
        /// The longest the whole update may take.
        package var maxSeconds: Int
        /// Each request's (an AppImage's control file and ranges).
        package var limits: TransportLimits
        /// Where gh-releases-zsync update information is resolved (option github_api_endpoint).
        package var gitHubAPI: String
        /// The option trusted_keys as set: a new AppImage must then carry a
        /// signature by one of them.
        package var trustedKeys: String?

        package init(kind: Kind, maxSeconds: Int, limits: TransportLimits, gitHubAPI: String, trustedKeys: String?) {
            (self.kind, self.maxSeconds, self.limits) = (kind, maxSeconds, limits)
            (self.gitHubAPI, self.trustedKeys) = (gitHubAPI, trustedKeys)
        }

        /// Its records after the mode.
        func add(to message: inout HelperMessage) {
            switch kind {
            case .flatpak: message.add("kind", "flatpak")
            case .appImage(let path): message.add("kind", "appimage"); message.add("path", path)
            case .package(let name): message.add("kind", "package"); message.add("package", name)
            case .snap(let name, let channel):
                message.add("kind", "snap")
                message.add("snap", name)
                if let channel { message.add("channel", channel) }
            }
            message.add("max_seconds", String(maxSeconds))
            limits.add(to: &message, as: .update)
            message.add("github_api", gitHubAPI)
            if let trustedKeys { message.add("trusted_keys", trustedKeys) }
        }

        /// The update as `add` wrote it; nil when its kind or limits are malformed.
        init?(_ message: HelperMessage) {
            let kind: Kind
            switch (message.value("kind"), message.value("path")) {
            case ("flatpak"?, _): kind = .flatpak
            case ("appimage"?, let path?): kind = .appImage(path: path)
            case ("package"?, _):
                guard let name = message.value("package") else { return nil }
                kind = .package(name: name)
            case ("snap"?, _):
                guard let name = message.value("snap"), SnapName.isValid(name) else { return nil }
                kind = .snap(name: name, channel: message.value("channel"))
            default: return nil
            }
            guard let limits = TransportLimits(message, as: .update) else { return nil }
            self.init(kind: kind, maxSeconds: message.value("max_seconds").flatMap(HelperMessage.integer) ?? Self.defaultMaxSeconds,
                      limits: limits, gitHubAPI: message.value("github_api") ?? ClientOptions().gitHubAPIEndpoint,
                      trustedKeys: message.value("trusted_keys"))
        }
    }
}
