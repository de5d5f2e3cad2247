import VersionGateCore

/// What a remote source fetches, as the host tells the helper
/// (docs/design.md, "The fetch helper"): the protocol and its parameters,
/// nothing of the client's options beyond them.
package enum RemoteConfig: Sendable, Equatable {
    /// A self-hosted gate document; `trustedKeys` as the option was set
    /// (then its `.minisig` is fetched and verified too).
    case document(url: String, trustedKeys: String?)
    /// Firebase Remote Config: the project, its app and where to ask.
    case firebase(Firebase)

    package struct Firebase: Sendable, Equatable {
        package var projectID: String
        package var apiKey: String
        package var appID: String
        package var packageName: String?
        package var endpoint: String
        package var installationsEndpoint: String

        package init(projectID: String, apiKey: String, appID: String, packageName: String?, endpoint: String,
                     installationsEndpoint: String) {
            (self.projectID, self.apiKey, self.appID, self.packageName) = (projectID, apiKey, appID, packageName)
            (self.endpoint, self.installationsEndpoint) = (endpoint, installationsEndpoint)
        }
    }

    /// Names the source in messages and in the result's "source" field.
    package var name: String {
        switch self {
        case .document(let url, _): url
        case .firebase(let firebase): "firebase://\(firebase.projectID)"
        }
    }

    /// What is fetched, for the cache's and the state's file names: the
    /// same words in the host, which reads them, and the helper, which
    /// writes them. Firebase's package is in it: it selects the config served.
    package var cacheKey: String {
        switch self {
        case .document(let url, _): "document:" + url
        case .firebase(let f): "firebase:" + join([f.projectID, f.appID, f.packageName ?? "", f.endpoint], separator: "\n")
        }
    }

    func add(to message: inout HelperMessage) {
        switch self {
        case .document(let url, let keys):
            message.add("remote", "document")
            message.add("url", url)
            if let keys { message.add("trusted_keys", keys) }
        case .firebase(let firebase):
            message.add("remote", "firebase")
            message.add("project", firebase.projectID)
            message.add("api_key", firebase.apiKey)
            message.add("app_id", firebase.appID)
            if let name = firebase.packageName { message.add("package_name", name) }
            message.add("endpoint", firebase.endpoint)
            message.add("installations_endpoint", firebase.installationsEndpoint)
        }
    }

    init?(_ message: HelperMessage) {
        switch message.value("remote") {
        case "document":
            guard let url = message.value("url") else { return nil }
            self = .document(url: url, trustedKeys: message.value("trusted_keys"))
        case "firebase":
            guard let project = message.value("project"), let key = message.value("api_key"),
                  let app = message.value("app_id"), let endpoint = message.value("endpoint"),
                  let installations = message.value("installations_endpoint") else { return nil }
            self = .firebase(Firebase(projectID: project, apiKey: key, appID: app, packageName: message.value("package_name"),
                                      endpoint: endpoint, installationsEndpoint: installations))
        default:
            return nil
        }
    }
}
