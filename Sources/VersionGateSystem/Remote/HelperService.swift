import VersionGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The fetch helper's side (docs/design.md, "The fetch helper"): reads one
/// request, makes the client it describes with the network in this
/// process, runs the fetch and writes the answer. What `versiongate-helper`
/// runs through `vg__helper_main`; nothing else reaches it.
package enum HelperService {
    package static let protocolVersion = "1"

    /// Serves the request on `input` and answers on `output`; the exit status.
    package static func serve(input: Int32, output: Int32) -> Int32 {
        let answer: HelperMessage
        if let bytes = readToEnd(input, maxBytes: HelperMessage.maxBytes), let request = HelperMessage.decode(bytes) {
            switch request.value("protocol") == protocolVersion ? request.value("mode") : nil {
            case "update": answer = UpdateService.update(request, output: output)
            case "restart": answer = UpdateService.restart(request)
            default: answer = self.answer(request)
            }
        } else {
            answer = failed(GateFailure(.internalError, "the fetch helper could not read its request"))
        }
        return send(answer.encoded(), to: output) ? 0 : 1
    }

    /// Writes all of `bytes`; false when the host stopped listening (its deadline).
    @discardableResult
    static func send(_ bytes: [UInt8], to output: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    package static func answer(_ request: HelperMessage) -> HelperMessage {
        guard request.value("protocol") == protocolVersion else {
            return failed(GateFailure(.internalError, "the fetch helper speaks protocol \(protocolVersion), "
                                      + "not \(request.value("protocol") ?? "none")"))
        }
        if request.value("mode") == "http" { return exchange(request) }
        guard let mode = request.value("mode").flatMap(RemoteSource.FetchMode.init(rawValue:)),
              let now = request.value("now").flatMap({ Int64(decimal: $0) }),
              let deadline = request.value("deadline_ms").flatMap({ Int64(decimal: $0) }).flatMap({ Int(exactly: $0) }) else {
            return failed(GateFailure(.internalError, "the fetch helper's request has no mode, time or deadline"))
        }
        var options = ClientOptions()
        for assignment in request.values("option") {
            let (key, value) = split(assignment)
            do { try options.set(key, value) } catch { return failed(error) }
        }
        var variables: [String: String] = [:]
        for pair in request.values("env") {
            let (name, value) = split(pair)
            variables[name] = value
        }
        // libcurl reads its proxies from the environment: the request's.
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            if let value = variables[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
        // Bounded however the fetch goes: its own deadline, then this.
        alarm(UInt32(clamping: deadline / 1000 + 15))
        let environment = CheckEnvironment(variables: variables, cacheHome: request.value("cache_home"),
                                           stateHome: request.value("state_home"))
        let remote: RemoteSource
        switch SourceFactory.make(options, network: .inProcess) {
        case .failure(let failure): return failed(failure)
        case .success(let source as RemoteSource): remote = source
        case .success(let source): return failed(.invalidArgument("\(source.name): not a remote source"))
        }
        let log = request.value("log").flatMap(LogLevel.init(rawValue:)).map(CallLog.init(threshold:))
        let load = LoadRequest(appVersion: request.value("version"), localeOption: options.locale,
                               environment: environment, now: now, files: POSIXFiles(), bootClock: BootInstant.now,
                               deadline: Deadline(afterMilliseconds: deadline), log: log)
        var answer: HelperMessage
        switch remote.fetchHere(load, mode: mode) {
        case .failure(let failure):
            answer = failed(failure)
        case .success(let fetched):
            answer = HelperMessage()
            answer.add("outcome", "fetched")
            answer.add("origin", fetched.origin.rawValue)
            if let note = fetched.note { answer.add("note", note) }
            answer.add("entry", String(decoding: fetched.entry.encoded(), as: UTF8.self))
        }
        if let curl = CurlTransport.loadedVersion { log?.add(.debug, "fetched with libcurl \(curl)") }
        for line in log?.recorded ?? [] { answer.add("log", line.level.rawValue + " " + line.message) }
        return answer
    }

    /// One HTTP exchange for the host (HelperTransport: the App Store lookup).
    private static func exchange(_ request: HelperMessage) -> HelperMessage {
        guard let (http, limits) = HelperTransport.request(request) else {
            return failed(GateFailure(.internalError, "the fetch helper's http request is malformed"))
        }
        alarm(UInt32(clamping: limits.timeoutMs / 1000 + 15))
        return HelperTransport.answer(Result { () throws(TransportError) in try CurlTransport().send(http, limits: limits) })
    }

    private static func failed(_ failure: GateFailure) -> HelperMessage {
        var answer = HelperMessage()
        answer.add("outcome", "failed")
        answer.add("kind", "\(failure.kind)")
        answer.add("message", failure.message)
        return answer
    }

    /// "key=value" at its first "=" (a value may hold more).
    private static func split(_ pair: String) -> (String, String) {
        guard let equals = pair.firstIndex(of: "=") else { return (pair, "") }
        return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
    }
}
