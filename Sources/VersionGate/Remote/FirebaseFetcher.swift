/// Placeholder until the Firebase protocol lands: every fetch fails open.
struct FirebaseFetcher: ConfigFetcher {
    let projectID: String
    init(projectID: String, apiKey: String, appID: String, packageName: String?, endpoint: String,
         installationsEndpoint: String) {
        self.projectID = projectID
    }
    var name: String { "firebase://\(projectID)" }
    var cacheKey: String { name }
    func fetch(_ context: FetchContext) throws(FetchFailure) -> FetchOutcome {
        throw FetchFailure(.config("\(name): Firebase Remote Config is not supported by this build yet"))
    }
}
