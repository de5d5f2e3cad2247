import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Where the host's helper requests are served (docs/design.md, "The fetch
/// helper"): the helper program, which every host starts; in the unit
/// tests, a door that serves the same typed requests in the test's process,
/// so the host is driven through the wire as it is. Nothing of the host
/// starts the helper but through a door (scripts/check_layers).
package protocol HelperDoor: Sendable {
    /// Why no helper can be had (it is missing or untrusted); nil when one can.
    var unavailable: GateFailure? { get }
    /// Sends `request` to a helper that holds `lock` (when given) from then
    /// on; interim records go to `onInterim` (false: stop listening, the
    /// helper finishes alone). At `deadline` (nil: none) the helper is
    /// stopped. With `passingStdio` the host's descriptors 0-2 reach the
    /// helper. Its final answer (nil when none came) and its last route.
    func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock?, passingStdio: Bool,
              onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperReply, GateFailure>
    /// `call`, but at `deadline` the host stops listening and the helper
    /// goes on, to keep a late answer for the next launch.
    func ask(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?)
        -> Result<HelperReply, GateFailure>
    /// Starts `request`, which nobody waits for; the helper holds `lock` until it exits. Its pid.
    func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure>
    /// Starts a watch (docs/design.md, "Watching a source"): the read end of
    /// its answer pipe, nonblocking and close-on-exec, readable at each change;
    /// the helper ends when it is closed.
    func watch(_ request: HelperRequest) -> Result<Int32, GateFailure>
    /// Closes a watch's descriptor: its helper ends.
    func endWatch(_ descriptor: Int32)
    /// This process, as a watching helper checks it is still there.
    var hostID: Int32 { get }
}

extension HelperDoor {
    /// `call` with no stdio passed.
    package func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock? = nil,
                      onInterim: (HelperAnswer.Interim) -> Bool = { _ in true }) -> Result<HelperReply, GateFailure> {
        call(request, until: deadline, handingOn: lock, passingStdio: false, onInterim: onInterim)
    }
}

/// The helper program (HelperProcess): every host's door.
package struct HelperProgram: HelperDoor {
    package init() {}

    package var unavailable: GateFailure? {
        if case .failure(let failure) = HelperProcess.located { return failure }
        return nil
    }

    package func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock?, passingStdio: Bool,
                      onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperReply, GateFailure> {
        HelperProcess.call(request, until: deadline, handingOn: lock, passingStdio: passingStdio, onInterim: onInterim)
    }

    package func ask(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?)
        -> Result<HelperReply, GateFailure> {
        HelperProcess.ask(request, until: deadline, handingOn: lock)
    }

    package func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure> {
        HelperProcess.start(request, handingOn: lock)
    }

    package func watch(_ request: HelperRequest) -> Result<Int32, GateFailure> {
        HelperProcess.watch(request)
    }

    package func endWatch(_ descriptor: Int32) { close(descriptor) }

    package var hostID: Int32 { getpid() }
}
