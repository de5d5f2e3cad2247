import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import VersionGateSystem
import VersionGateNetwork

/// The helper's door for tests on a clock of their own: each request goes
/// through its wire form and is served in this process (HelperService),
/// as the helper program would serve it. A lock handed on stays held by
/// the test's process until the request is served.
struct InProcessHelper: HelperDoor {
    var unavailable: GateFailure? { nil }

    func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock?, passingStdio: Bool,
              onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperReply, GateFailure> {
        withExtendedLifetime(lock) {
            guard let message = HelperMessage.decode(request.message().encoded()) else {
                return .failure(GateFailure(.internalError, "the request does not survive its wire form"))
            }
            switch HelperRequest.decode(message) {
            case .failure(let failure): return .failure(failure)
            case .success(let decoded):
                let answer = withoutActuallyEscaping(onInterim) { HelperService.serve(decoded, interim: $0) }
                return .success(HelperReply(HelperMessage.decode(answer.message().encoded()).flatMap(HelperAnswer.decode)))
            }
        }
    }

    /// Served to the end: a late answer is kept as the real helper keeps it.
    func ask(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?)
        -> Result<HelperReply, GateFailure> {
        call(request, until: deadline, handingOn: lock, passingStdio: false) { _ in true }
    }

    func endWatch(_ descriptor: Int32) {}
    var hostID: Int32 { 1 }

    func watch(_ request: HelperRequest) -> Result<Int32, GateFailure> {
        .failure(GateFailure(.internalError, "a watch needs the helper program"))
    }

    func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure> {
        call(request, until: Deadline(afterMilliseconds: RefreshLimits.deadlineMilliseconds), handingOn: lock,
             passingStdio: false) { _ in true }.map { _ in 0 }
    }
}
