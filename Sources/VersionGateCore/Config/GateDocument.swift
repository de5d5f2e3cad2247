/// Reads a gate document (docs/design.md, "Sources and the cache"): flat
/// `{"key": "value", …}`, or a Firebase Remote Config template export
/// (`parameters` / `parameterGroups`).
package enum GateDocument {
    /// Bodies are capped at 1 MiB (docs/design.md, "Deadlines and limits");
    /// local files get the same limit.
    package static let maxBytes = 1 << 20

    package static func parse(_ bytes: [UInt8]) throws(GateDocumentError) -> GateConfig {
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes: bytes.count) }
        guard case .object(let top) = try JSONValue.decode(bytes) else { throw .notAnObject }
        return isTemplate(top) ? template(top) : flat(top)
    }

    private static func isTemplate(_ top: [String: JSONValue]) -> Bool {
        for key in ["parameters", "parameterGroups"] {
            if case .object = top[key] { return true }
        }
        return false
    }

    private static func flat(_ top: [String: JSONValue]) -> GateConfig {
        var config = GateConfig()
        for (key, value) in top {
            if case .string(let text) = value { config.values[key] = text } else { config.nonStringKeys.insert(key) }
        }
        return config
    }

    /// Parameters are flat for clients whatever group they are in. Only the
    /// default value counts: conditions are evaluated by Firebase, not here.
    private static func template(_ top: [String: JSONValue]) -> GateConfig {
        var lists: [[String: JSONValue]] = []
        if case .object(let parameters) = top["parameters"] { lists.append(parameters) }
        if case .object(let groups) = top["parameterGroups"] {
            for case .object(let group) in groups.values {
                if case .object(let parameters) = group["parameters"] { lists.append(parameters) }
            }
        }
        var config = GateConfig()
        var seen: Set<String> = []
        for parameters in lists {
            for (key, parameter) in parameters {
                // Defined twice (Firebase forbids it): which one wins would be a
                // guess, so neither does.
                guard seen.insert(key).inserted else {
                    config.values[key] = nil
                    config.nonStringKeys.insert(key)
                    continue
                }
                switch defaultValue(of: parameter) {
                case .text(let text): config.values[key] = text
                case .unusable: config.nonStringKeys.insert(key)
                case .absent: break
                }
            }
        }
        config.templateVersion = top["version"]?["versionNumber"].flatMap { value in
            if case .string(let text) = value { Int64(decimal: text) } else { nil }
        }
        return config
    }

    private enum Default { case text(String), unusable, absent }

    /// `{"defaultValue": {"value": "…"}}`. `useInAppDefault`, no default or a
    /// kind we do not evaluate (rollout, personalization…) mean absent.
    private static func defaultValue(of parameter: JSONValue) -> Default {
        guard case .object(let members) = parameter else { return .unusable }
        guard let value = members["defaultValue"] else { return .absent }
        guard case .object = value else { return .unusable }
        if case .bool(true) = value["useInAppDefault"] { return .absent }
        switch value["value"] {
        case .string(let text): return .text(text)
        case nil: return .absent
        default: return .unusable
        }
    }
}
