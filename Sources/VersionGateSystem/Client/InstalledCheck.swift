import VersionGateCore
import VersionGatePlatform

extension GateClient {
    /// A check of the version installed on this system, read where option
    /// `installed_version_from` says (docs/design.md, "The installed
    /// version"); fails open with why when it cannot be read.
    package func checkInstalled(log: CallLog? = nil) -> GateResult {
        let (options, sourceName) = settings
        guard let from = options.installedVersionFrom else {
            let result = GateResult(failOpen: .invalidArgument("current version is NULL and installed_version_from is not set"),
                                    source: sourceName)
            log?.record(result)
            return result
        }
        switch InstalledVersion.read(from, appID: options.appID, environment: system.environment, files: system.files) {
        case .success(var text):
            return text.withUTF8 { check(current: $0, log: log) }
        case .failure(let failure):
            log?.add(.warning, failure.message)
            let result = GateResult(failOpen: failure, source: sourceName)
            log?.record(result)
            return result
        }
    }
}
