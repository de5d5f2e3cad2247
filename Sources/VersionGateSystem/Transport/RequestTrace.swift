import Synchronization

/// The route of the last request one call's helpers made (docs/design.md,
/// "The desktop's proxy"), for its result's `proxy`: one per call that may
/// make a request, made with its deadline (LazyDeadline), so a warm check
/// makes none and no call sees another's.
package final class RequestTrace: Sendable {
    private let route = Mutex<String?>(nil)

    package init() {}

    /// `route` when the helper made a request; nil leaves the last one.
    package func note(_ route: String?) {
        guard let route else { return }
        self.route.withLock { $0 = route }
    }

    package var last: String? { route.withLock { $0 } }
}
