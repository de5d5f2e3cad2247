/// The administrator's word on a managed machine (docs/design.md, "The
/// administrator's policy"): what root's policy files say, layered key by
/// key, each value with the file it came from. Pure: the files are read and
/// trusted in the system layer (PolicyFiles).
package struct AdministratorPolicy: Sendable, Equatable {
    /// `mandatory`: `warn` accepts the risk of a MANDATORY (it becomes OPTIONAL).
    package enum Mandatory: String, Sendable, Equatable { case enforce, warn }

    /// One key's value and the file that set it.
    package struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
        package var value: Value
        package var file: String
    }

    /// The keys of one layer (the top level, or one app's section).
    package struct Keys: Sendable, Equatable {
        package var mandatory: Setting<Mandatory>?
        package var inPlaceUpdates: Setting<Bool>?
        package var optionalPrompts: Setting<Bool>?
        package var managedMessage: Setting<String>?
        package var managedURL: Setting<String>?
        package var network: Setting<Bool>?
        package var source: Setting<String>?

        package init() {}

        /// `later` wins key by key.
        package func overlaid(by later: Keys) -> Keys {
            var merged = self
            merged.mandatory = later.mandatory ?? mandatory
            merged.inPlaceUpdates = later.inPlaceUpdates ?? inPlaceUpdates
            merged.optionalPrompts = later.optionalPrompts ?? optionalPrompts
            merged.managedMessage = later.managedMessage ?? managedMessage
            merged.managedURL = later.managedURL ?? managedURL
            merged.network = later.network ?? network
            merged.source = later.source ?? source
            return merged
        }

        /// Each key set, as `versiongate policy` prints it: name, value (a
        /// string JSON-quoted), file.
        package var lines: [(key: String, value: String, file: String)] {
            var lines: [(String, String, String)] = []
            func quoted(_ text: String) -> String { String(decoding: JSONValue.string(text).encoded(), as: UTF8.self) }
            if let s = mandatory { lines.append(("mandatory", s.value.rawValue, s.file)) }
            if let s = inPlaceUpdates { lines.append(("in_place_updates", String(s.value), s.file)) }
            if let s = optionalPrompts { lines.append(("optional_prompts", String(s.value), s.file)) }
            if let s = managedMessage { lines.append(("managed_message", quoted(s.value), s.file)) }
            if let s = managedURL { lines.append(("managed_url", quoted(s.value), s.file)) }
            if let s = network { lines.append(("network", String(s.value), s.file)) }
            if let s = source { lines.append(("source", quoted(s.value), s.file)) }
            return lines
        }
    }

    /// Every app's keys, and each app's own (by `app_id`).
    package var everyApp = Keys()
    package var apps: [String: Keys] = [:]
    /// The files that counted, in reading order.
    package var files: [String] = []

    package init() {}

    /// Whether any file counted (the result's `managed`).
    package var isManaged: Bool { !files.isEmpty }

    /// `layer` read after every layer so far: it wins key by key.
    package mutating func add(_ layer: PolicyLayer) {
        files.append(layer.file)
        everyApp = everyApp.overlaid(by: layer.everyApp)
        for (app, keys) in layer.apps { apps[app] = (apps[app] ?? Keys()).overlaid(by: keys) }
    }

    /// The keys that apply to `appID`: its own section's over the top level's.
    package func keys(appID: String?) -> Keys {
        guard let appID, let own = apps[appID] else { return everyApp }
        return everyApp.overlaid(by: own)
    }

    /// The effective policy, one line per key (`apps.ID.key` for an app's).
    package var lines: [(key: String, value: String, file: String)] {
        everyApp.lines + apps.keys.sorted().flatMap { app in
            (apps[app] ?? Keys()).lines.map { ("apps.\(app).\($0.key)", $0.value, $0.file) }
        }
    }
}
