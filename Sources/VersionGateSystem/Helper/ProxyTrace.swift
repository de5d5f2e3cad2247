import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The route of the last request a helper made for the calling thread
/// ("direct", or "scheme://host:port from ORIGIN"): a check's helper calls
/// all run on the thread that checks, so its result can tell the proxy of
/// its last request (docs/design.md, "The desktop's proxy").
package enum ProxyTrace {
    private static let routes = Mutex<[UInt: String]>([:])

    static func record(_ route: String) {
        routes.withLock { $0[UInt(pthread_self())] = route }
    }

    /// The calling thread's last route since the previous take; nil when it made no request.
    package static func take() -> String? {
        routes.withLock { $0.isEmpty ? nil : $0.removeValue(forKey: UInt(pthread_self())) }
    }
}
