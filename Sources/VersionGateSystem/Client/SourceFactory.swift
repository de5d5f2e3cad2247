import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// The ConfigSource that a client's options describe.
package enum SourceFactory {
    package static func make(_ options: ClientOptions, helper: any HelperDoor) -> Result<any ConfigSource, GateFailure> {
        guard let spec = options.source else {
            return .failure(.config("no source set (vg_client_set \"source\")"))
        }
        let trust = DocumentTrust(options)
        switch spec {
        case .file(let path):
            return .success(LocalDocumentSource(path: path, platform: options.platform, trust: trust))
        case .document(let url):
            let keys = trust == nil ? nil : options.assignments["trusted_keys"]
            return .success(remote(.document(url: url, trustedKeys: keys), options, helper))
        case .firebase(let projectID, let urlKey, let urlAppID):
            guard trust == nil else {
                return .failure(.config("trusted_keys is set, but the source is Firebase Remote Config, whose values "
                                        + "cannot carry a detached signature; sign a self-hosted https document instead"))
            }
            let project = options.firebaseProjectID ?? projectID
            guard let apiKey = options.firebaseAPIKey ?? urlKey, let appID = options.firebaseAppID ?? urlAppID else {
                return .failure(.config("firebase://\(project): needs an API key and an app id "
                                        + "(api_key= and app_id= in the URL, or the firebase_* options)"))
            }
            let firebase = RemoteConfig.Firebase(projectID: project, apiKey: apiKey, appID: appID,
                                                 packageName: options.packageName, endpoint: options.firebaseEndpoint,
                                                 installationsEndpoint: options.firebaseInstallationsEndpoint)
            return .success(remote(.firebase(firebase), options, helper))
        }
    }

    private static func remote(_ remote: RemoteConfig, _ options: ClientOptions, _ helper: any HelperDoor) -> RemoteSource {
        RemoteSource(remote: remote, platform: options.platform, settings: RemoteSource.Settings(options, helper: helper))
    }
}
