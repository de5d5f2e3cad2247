import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The route of the last request a helper made for the calling thread
/// ("direct", or "scheme://host:port from ORIGIN"): a check's helper calls
/// all run on the thread that checks, so its result can tell the proxy of
/// its last request (docs/design.md, "The desktop's proxy"). A check takes
/// it into its result; every other call that may ask a helper (refresh,
/// update, the store's resolution) takes it when it ends, so a check takes
/// once and finds only its own.
package enum ProxyTrace {
    private static let routes = Mutex<[UInt: String]>([:])
    /// How many routes are kept: a check that made no request (a warm one)
    /// takes no lock.
    private static let kept = Atomic<Int>(0)

    static func record(_ route: String) {
        routes.withLock { routes in
            if routes.updateValue(route, forKey: UInt(pthread_self())) == nil { kept.add(1, ordering: .releasing) }
        }
    }

    /// The calling thread's last route since the previous take; nil when it made no request.
    package static func take() -> String? {
        guard kept.load(ordering: .acquiring) > 0 else { return nil }
        return routes.withLock { routes in
            let route = routes.removeValue(forKey: UInt(pthread_self()))
            if route != nil { kept.subtract(1, ordering: .releasing) }
            return route
        }
    }
}
