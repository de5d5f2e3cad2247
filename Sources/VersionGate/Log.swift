import Synchronization
import VersionGateC
import VersionGateCore
import VersionGatePlatform
import VersionGateSystem

/// A client's log callback and its userdata, as the host gave them.
struct LogTarget: @unchecked Sendable {   // the host owns userdata and says it may cross threads
    let function: vg_log_fn
    let userdata: UnsafeMutableRawPointer?

    /// A call's lines, on the calling thread, after the call is done: no
    /// library lock is held, so the callback may call the library.
    func deliver(_ log: CallLog?) {
        for line in log?.recorded ?? [] {
            line.message.withCString { function(line.level.code, $0, userdata) }
        }
    }
}

extension ClientHandle {
    /// A log for one call when a callback listens, else nil (then nothing
    /// is recorded or formatted).
    func callLog() -> (LogTarget, CallLog)? {
        guard logs.load(ordering: .acquiring), let target = logTarget.withLock({ $0 }) else { return nil }
        return (target, CallLog(threshold: client.logLevel))
    }
}

@_cdecl("vg_client_set_log_callback")
public func vg_client_set_log_callback(_ client: OpaquePointer?, _ function: vg_log_fn?,
                                       _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    withClient(client, lastError: .untouched) { handle in
        handle.logTarget.withLock { target in
            target = function.map { LogTarget(function: $0, userdata: userdata) }
            handle.logs.store(target != nil, ordering: .releasing)
        }
    }
}
