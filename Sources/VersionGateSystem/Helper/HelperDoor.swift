import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Where a remote source's fetches are served (docs/design.md, "The fetch
/// helper"): the helper program, which every host starts; in the unit
/// tests, a door that serves the same typed requests in the test's process,
/// so the host is driven through the wire as it is.
package protocol HelperDoor: Sendable {
    /// Sends `request` to a helper that holds `lock` (when given) from then
    /// on; interim records go to `onInterim`. The final answer, nil when
    /// the helper ended without one.
    func call(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?,
              onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperAnswer?, GateFailure>
    /// Starts `request`, which nobody waits for; the helper holds `lock` until it exits. Its pid.
    func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure>
}

/// The helper program (HelperProcess): every host's door.
package struct HelperProgram: HelperDoor {
    package init() {}

    package func call(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?,
                      onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperAnswer?, GateFailure> {
        HelperProcess.call(request, until: deadline, handingOn: lock, onInterim: onInterim)
    }

    package func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure> {
        HelperProcess.start(request, handingOn: lock)
    }
}
