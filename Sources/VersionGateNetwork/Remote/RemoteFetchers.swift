import VersionGateCore
import VersionGateWire
import VersionGatePlatform

extension RemoteConfig {
    /// The fetcher the host described (ConfigFetcher.remote), made again in
    /// the helper; a refusal when its keys do not parse.
    package func fetcher() -> Result<any ConfigFetcher, GateFailure> {
        switch self {
        case .document(let url, nil):
            return .success(DocumentFetcher(url: url))
        case .document(let url, let keys?):
            guard let parsed = MinisignPublicKey.parseList(keys), !parsed.isEmpty else {
                return .failure(.invalidArgument("the fetch's trusted_keys do not parse"))
            }
            var fetcher = DocumentFetcher(url: url, trust: DocumentTrust(keys: parsed))
            fetcher.trustedKeysText = keys
            return .success(fetcher)
        case .firebase(let firebase):
            return .success(FirebaseFetcher(projectID: firebase.projectID, apiKey: firebase.apiKey, appID: firebase.appID,
                                            packageName: firebase.packageName, endpoint: firebase.endpoint,
                                            installationsEndpoint: firebase.installationsEndpoint))
        }
    }
}
