import VersionGateCore
import VersionGateWire
import VersionGateSystem
#if canImport(Glibc)
import Glibc
#endif

/// A remote source's fetch, the helper's side (docs/design.md, "The fetch
/// helper"): the client the request describes, its source's fetch made
/// here, the entry handed back as the cache file holds it.
package enum FetchService {
    package static func fetch(_ request: HelperRequest.ConfigFetch, interim: (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        var options = ClientOptions()
        for assignment in request.options {
            let (key, value) = HelperMessage.split(assignment, at: "=")
            do { try options.set(key, value) } catch { return .failed(error) }
        }
        // libcurl reads its proxies from the environment: the host's.
        for name in CheckEnvironment.proxyNames {
            if let value = request.environment[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
        // Bounded however the fetch goes: its own deadline, then this.
        let deadline = Deadline(atNanoseconds: request.deadlineNanoseconds)
        alarm(UInt32(clamping: deadline.remainingMilliseconds / 1000 + 15))
        let remote: RemoteSource
        switch SourceFactory.make(options, network: .here(CurlTransport())) {
        case .failure(let failure): return .failed(failure)
        case .success(let source as RemoteSource): remote = source
        case .success(let source): return .failed(.invalidArgument("\(source.name): not a remote source"))
        }
        let log = request.log.map(CallLog.init(threshold:))
        let environment = CheckEnvironment(variables: request.environment, cacheHome: request.cacheHome,
                                           stateHome: request.stateHome)
        var load = LoadRequest(appVersion: request.appVersion, localeOption: options.locale,
                               environment: environment, now: request.now, files: POSIXFiles(), bootClock: BootInstant.now,
                               deadline: deadline, log: log)
        load.boot = request.boot   // the host's, as `now` is
        let answer: HelperAnswer
        switch remote.fetchHere(load, mode: request.mode) {
        case .failure(let failure): answer = .failed(failure)
        case .success(let fetched):
            answer = .fetched(origin: fetched.origin, note: fetched.note, entry: fetched.entry.encoded(),
                              identity: fetched.identity)
        }
        if let curl = CurlTransport.loadedVersion { log?.add(.debug, "fetched with libcurl \(curl)") }
        for line in log?.recorded ?? [] { _ = interim(.log(line.level, line.message)) }
        return answer
    }
}
