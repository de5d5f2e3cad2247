import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The helper's side (docs/design.md, "The helper's protocol"): reads one
/// request, serves it with the network, the portal and PackageKit in this process, and
/// writes the answer. What `versiongate-helper` runs through
/// its `main`; nothing else reaches it.
package enum HelperService {
    /// Serves the request on `input` and answers on `output`; the exit status.
    package static func serve(input: Int32, output: Int32) -> Int32 {
        CurlTransport.inHelper.store(true, ordering: .relaxed)
        let answer: HelperAnswer
        if let bytes = readToEnd(input, maxBytes: HelperMessage.maxBytes), let message = HelperMessage.decode(bytes) {
            switch HelperRequest.decode(message) {
            case .failure(let failure): answer = .failed(failure)
            case .success(let request):
                // Bounded however the fetch goes: its own deadline, then this.
                if case .fetch(let fetch) = request {
                    alarm(UInt32(clamping: Deadline(atNanoseconds: fetch.deadlineNanoseconds).remainingMilliseconds / 1000 + 15))
                    useProxyVariables(fetch.environment)
                }
                if case .watch(let watch) = request {
                    useProxyVariables(watch.fetch?.environment ?? [:])
                    answer = WatchService.run(watch, output: output)
                } else {
                    answer = serve(request) { send($0.record.encoded(), to: output) }
                }
            }
        } else {
            answer = .failed(GateFailure(.internalError, "the helper could not read its request"))
        }
        var message = answer.message()
        // The last request's proxy, for the result's `proxy` (docs/design.md, "The desktop's proxy").
        if let route = CurlTransport.lastRoute { message.add("proxy", route) }
        return send(message.encoded(), to: output) ? 0 : 1
    }

    /// libcurl reads its proxies from the environment: the host's, as its request carries them.
    private static func useProxyVariables(_ environment: [String: String]) {
        for name in HelperRequest.ConfigFetch.proxyNames {
            if let value = environment[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }

    /// The dispatch table: each mode and who serves it. `interim` sends a
    /// record to the host at once; false when the host stopped listening.
    package static func serve(_ request: HelperRequest, interim: @escaping (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        switch request {
        case .fetch(let fetch): ConfigService.fetch(fetch, interim: interim)
        case .channel(let ask): ChannelService.ask(ask)
        case .update(let update):
            switch update.kind {
            case .flatpak, .package: UpdateService.update(update.kind, maxSeconds: update.maxSeconds, interim: interim)
            case .snap(let name, let channel):
                SnapdRefresh.update(name: name, channel: channel, maxSeconds: update.maxSeconds, limits: update.limits,
                                    send: interim)
            case .appImage(let path): AppImageUpdate.update(path: path, update: update, send: interim)
            }
        case .restart(let restart): UpdateService.restart(restart)
        case .watch(let watch): .failed(GateFailure(.internalError, "watch \(watch.file ?? "a remote source"): "
                                                    + "served only with the host's end to watch"))
        }
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
}
