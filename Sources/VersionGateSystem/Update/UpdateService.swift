import VersionGateCore
import PortalShim
#if canImport(Glibc)
import Glibc
#endif

/// Updating in place, the helper's side (docs/design.md, "Updating in
/// place"): the portal through GIO (PortalShim), in the helper's own
/// process. Progress goes to the host as it comes, one record each.
enum UpdateService {
    /// Mode "update": each Progress as a `progress` record on `output` at
    /// once, then the answer (outcome, message).
    static func update(_ request: HelperMessage, output: Int32) -> HelperMessage {
        let seconds = request.value("max_seconds").flatMap { Int64(decimal: $0) }.map { UInt32(clamping: $0) }
            ?? UInt32(InPlaceUpdate.maxSeconds)
        var outcome = vgp_outcome()
        // The output descriptor travels in the context pointer (+1: never NULL).
        vgp_update(&outcome, seconds, { op, count, percent, context in
            var record = HelperMessage()
            record.add("progress", InPlaceUpdate.Progress(op: Int(op), count: Int(count), percent: Int(percent)).record)
            HelperService.send(record.encoded(), to: Int32(truncatingIfNeeded: Int(bitPattern: context) - 1))
        }, UnsafeMutableRawPointer(bitPattern: Int(output) + 1))
        var answer = HelperMessage()
        answer.add("outcome", UpdateOutcome(rawValue: outcome.kind).map(\.name) ?? UpdateOutcome.failed.name)
        answer.add("message", text(&outcome.message))
        return answer
    }

    /// Mode "restart": the newest installed version started through the
    /// portal with the host's descriptors 0-2 (here 3-5), then, when asked,
    /// waited for.
    static func restart(_ request: HelperMessage) -> HelperMessage {
        let arguments = request.values("arg")
        let wait = request.value("wait") == "1"
        var status: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var answer = HelperMessage()
        guard argv.dropLast().allSatisfy({ $0 != nil }) else {
            answer.add("outcome", "failed")
            answer.add("message", "out of memory")
            return answer
        }
        let descriptors: [Int32] = [3, 4, 5]
        let started = withUnsafeMutablePointer(to: &status) { statusPointer in
            vgp_spawn_latest(request.value("cwd") ?? "/", argv, descriptors, wait ? statusPointer : nil,
                             &message, message.count)
        }
        if started == 0 {
            answer.add("outcome", wait ? "exited" : "started")
            if wait { answer.add("status", "\(status)") }
        } else {
            answer.add("outcome", "failed")
            answer.add("message", String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return answer
    }

    private static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
