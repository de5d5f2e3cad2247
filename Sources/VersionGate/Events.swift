import Synchronization
import VersionGateC
import VersionGateCore
import VersionGatePlatform
import VersionGateSystem

/// A client's event callback and its userdata, as the host gave them.
struct EventTarget: @unchecked Sendable {   // the host owns userdata and says it may cross threads
    let function: vg_event_fn
    let userdata: UnsafeMutableRawPointer?

    /// A call's events, on the calling thread, after the call is done: no
    /// library lock is held, so the callback may call the library.
    func deliver(_ events: [String]) {
        for event in events { event.withCString { function($0, userdata) } }
    }
}

extension ResultFields {
    /// The result fields a `decided` event carries, in this order
    /// (scripts/generate writes them from declarations/decided.decl).
    static let decidedKeys = [
        // BEGIN GENERATED decided (scripts/generate)
        "status",
        "rule",
        "reason",
        "min_required",
        "latest",
        "origin",
        "should_prompt",
        "channel",
        "channel_version",
        "managed",
        "policy_files",
        // END GENERATED decided
    ]

    /// Those fields of `result` as the result's JSON writes them.
    static func members(_ keys: [String], of result: GateResult) -> [(String, JSONValue)] {
        keys.compactMap { key in byKey[key].map { (key, $0.value(result).json) } }
    }
}

extension ResultValue {
    var json: JSONValue {
        switch self {
        case .text(let text): return text.map(JSONValue.string) ?? .null
        // Exact below 2^53 (JSONValue numbers are Doubles); no decided field is a number.
        case .number(let number): return number.map { .number(Double($0)) } ?? .null
        case .flag(let flag): return .bool(flag)
        case .list(let items): return .array(items.map(JSONValue.string))
        }
    }
}

@_cdecl("vg_client_set_event_callback")
public func vg_client_set_event_callback(_ client: OpaquePointer?, _ function: vg_event_fn?,
                                         _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    withClient(client, lastError: .untouched) { handle in
        handle.eventTarget.withLock { target in
            target = function.map { EventTarget(function: $0, userdata: userdata) }
            handle.listens.store(target != nil, ordering: .releasing)
        }
    }
}

@_cdecl("vg_client_report")
public func vg_client_report(_ client: OpaquePointer?, _ result: OpaquePointer?,
                             _ outcome: UnsafePointer<CChar>?) -> Int32 {
    withClient(client) { handle throws(GateFailure) in
        let text = outcome.flatMap { String(validatingCString: $0) }
        guard let result else { throw .invalidArgument("result is NULL") }
        guard let outcome = text.flatMap(ReportedOutcome.init(rawValue:)) else {
            throw .invalidArgument("unknown outcome \(text.map { OneLine.quoted($0, max: 64) } ?? "NULL")")
        }
        let gateResult = Unmanaged<GateResult>.fromOpaque(UnsafeRawPointer(result)).takeUnretainedValue()
        let target = handle.eventTarget.withLock { $0 }
        let (event, failure) = GateEvents.report(outcome, gateResult, client: handle.client,
                                                 confirmations: handle.confirmations, emit: target != nil)
        if let target, let event { target.deliver([event]) }
        if let failure { throw failure }
    }
}

@_cdecl("vg_events_funnel")
public func vg_events_funnel(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ path: UnsafePointer<CChar>?) -> Int32 {
    guard let out else { return VG_EINVAL.rawValue }
    out.pointee = nil
    guard let path, let pathText = String(validatingCString: path) else { return VG_EINVAL.rawValue }
    var funnel = EventFunnel()
    do {
        funnel.add(lines: try System.live.files.read(pathText, maxBytes: EventFunnel.maxFileBytes, trust: .document).bytes)
    } catch {
        out.pointee = mallocCopy(error.message + "\n")
        return error.code
    }
    out.pointee = mallocCopy(funnel.text)
    return out.pointee == nil ? VG_ENOMEM.rawValue : VG_OK.rawValue
}
