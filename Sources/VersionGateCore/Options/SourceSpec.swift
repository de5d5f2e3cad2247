/// What the "source" option names: a local gate document, a self-hosted
/// document over https, or a Firebase project.
package enum SourceSpec: Sendable, Equatable {
    case file(path: String)
    case document(url: String)
    /// firebase://PROJECT_ID?api_key=…&app_id=… (the client's firebase_*
    /// options fill in or override what the URL leaves out).
    case firebase(projectID: String, apiKey: String?, appID: String?)

    package static func parse(_ value: String) throws(GateFailure) -> SourceSpec {
        let lower = value.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            if case .failure(let error) = TransportURL.check(value) { throw .invalidArgument("source: \(error.message)") }
            return .document(url: value)
        }
        if lower.hasPrefix("firebase://") { return try firebase(value) }
        return .file(path: try SourceLocation.path(from: value))
    }

    private static func firebase(_ value: String) throws(GateFailure) -> SourceSpec {
        let rest = value.dropFirst("firebase://".count)
        let project = String(rest.prefix { $0 != "?" && $0 != "/" })
        guard (1...64).contains(project.utf8.count),
              project.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }) else {
            throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): the project id must be 1-64 characters of a-z, 0-9 and -")
        }
        var apiKey: String?, appID: String?
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let decoded = PercentEncoding.decoded(parts[1]) else {
                    throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): malformed query")
                }
                switch parts[0] {
                case "api_key": apiKey = decoded
                case "app_id": appID = decoded
                default: throw .invalidArgument("source \(OneLine.quoted(value, max: 80)): unknown parameter \(OneLine.quoted(String(parts[0]), max: 64))")
                }
            }
        }
        return .firebase(projectID: project, apiKey: apiKey, appID: appID)
    }
}
