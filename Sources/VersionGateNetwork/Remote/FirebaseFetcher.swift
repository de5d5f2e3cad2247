import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// Firebase Remote Config, asked the way the official SDKs ask it
/// (Tests/Fixtures/PROTOCOLS.md §1): POST …/namespaces/firebase:fetch?key=… with the
/// installation's FID and auth token and the facts conditions test. The
/// body is the C++ desktop SDK's: strict JSON, camelCase, not compressed.
package struct FirebaseFetcher: ConfigFetcher {
    package let projectID: String
    package let apiKey: String
    package let appID: String
    package let packageName: String?
    package let endpoint: String
    package let installationsEndpoint: String

    /// Sent as sdkVersion to both services, which only record it.
    package static let sdkVersion = "versiongate-1.5.0"

    package init(projectID: String, apiKey: String, appID: String, packageName: String?,
         endpoint: String = "https://firebaseremoteconfig.googleapis.com",
         installationsEndpoint: String = "https://firebaseinstallations.googleapis.com") {
        self.projectID = projectID
        self.apiKey = apiKey
        self.appID = appID
        self.packageName = packageName
        self.endpoint = endpoint
        self.installationsEndpoint = installationsEndpoint
    }

    package var remote: RemoteConfig {
        .firebase(.init(projectID: projectID, apiKey: apiKey, appID: appID, packageName: packageName, endpoint: endpoint,
                        installationsEndpoint: installationsEndpoint))
    }

    package var fetchURL: String {
        ASCII.withoutTrailingSlashes(endpoint) + "/v1/projects/\(PercentEncoding.encoded(projectID))/namespaces/firebase:fetch?key="
            + PercentEncoding.encoded(apiKey)
    }

    package func fetch(_ context: FetchContext) throws(FetchFailure) -> FetchOutcome {
        guard !projectID.isEmpty, !appID.isEmpty, FirebaseInstallation.isHeaderToken(apiKey) else {
            throw FetchFailure(.config("\(name): needs a project id, an app id and an API key of visible ASCII"))
        }
        let installation = FirebaseInstallations(projectID: projectID, apiKey: apiKey, appID: appID,
                                                 endpoint: installationsEndpoint).resolve(context)
        let url = fetchURL
        var headers = [(name: "Content-Type", value: "application/json"), (name: "Accept", value: "application/json")]
        if let etag = context.previousETag, !etag.isEmpty, etag.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            headers.append((name: "If-None-Match", value: etag))
        }
        if let token = installation.token {
            headers.append((name: "X-Goog-Firebase-Installations-Auth", value: token))
        }
        if let fetchType = context.fetchType { headers.append((name: "X-Firebase-RC-Fetch-Type", value: fetchType)) }
        let request = HTTPRequest(url: url, body: body(context, installation).encoded(), headers: headers,
                                  credentialsStayWithOrigin: true)
        let response: HTTPResponse
        do {
            response = try context.transport.send(request, limits: context.requestLimits)
        } catch {
            throw FetchFailure(GateFailure(error.failure.kind, redacted(error.message)))
        }
        return try FirebaseFetchResponse.outcome(response, source: name, requestURL: url, note: installation.note)
    }

    /// request_linux_recommended.json; absent facts are left out (conditions
    /// on them then evaluate false, as the service documents).
    private func body(_ context: FetchContext, _ installation: FirebaseInstallations.Resolved) -> JSONValue {
        var members: [String: JSONValue] = [
            "appInstanceId": .string(installation.fid),
            "appInstanceIdToken": .string(installation.token ?? ""),
            "appId": .string(appID),
            "sdkVersion": .string(Self.sdkVersion),
        ]
        let optional: [(String, String?)] = [
            ("appVersion", context.appVersion), ("packageName", packageName),
            ("languageCode", context.languageCode), ("countryCode", context.device.countryCode),
            ("platformVersion", context.device.platformVersion), ("timeZone", context.device.timeZone),
        ]
        for case let (key, value?) in optional where !value.isEmpty { members[key] = .string(value) }
        return .object(members)
    }

    /// Transport messages quote the URL; the key need not be repeated there.
    /// By hand over bytes: String.replacing would link in _StringProcessing
    /// (800 KB of code, all loaded at every start).
    private func redacted(_ message: String) -> String {
        let secret = Array(("key=" + PercentEncoding.encoded(apiKey)).utf8)  // ASCII: never splits a character
        let text = Array(message.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            if text[i...].starts(with: secret) {
                out += "key=…".utf8
                i += secret.count
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
