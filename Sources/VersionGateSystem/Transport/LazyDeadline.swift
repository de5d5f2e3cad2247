import VersionGateWire
/// One deadline for a whole call, started by the first step that may
/// wait, and the trace of its requests, made by the first that may ask the
/// helper: a warm check reads no clock and makes no trace. A value with a mutating getter, not a captured `var` and a
/// nested function: Swift 6.0 boxed that `var` on the heap at every check
/// (one allocation a check more than 6.3, which kept it on the stack;
/// Tests/c/warm_alloc_test.c counts them).
package struct LazyDeadline {
    private let milliseconds: Int
    private var started: Deadline?
    /// Where the call's helpers note their last request's route; nil until `traced`.
    private var trace: RequestTrace?

    package init(afterMilliseconds ms: Int) {
        milliseconds = ms
    }

    package mutating func get() -> Deadline {
        if let started { return started }
        let made = Deadline(afterMilliseconds: milliseconds)
        started = made
        return made
    }

    package mutating func traced() -> RequestTrace {
        if let trace { return trace }
        let made = RequestTrace()
        trace = made
        return made
    }

    /// The route of the call's last request; nil when it made none.
    package var route: String? { trace?.last }
}
