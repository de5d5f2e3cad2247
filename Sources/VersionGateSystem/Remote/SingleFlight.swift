import VersionGateCore
import Synchronization

/// One lock per remote source (by cache key) for the whole process, so
/// concurrent checks on any number of clients make one request: the first
/// fetches, the others wait and then find the fresh cache.
package final class SingleFlight: Sendable {
    private let mutex = Mutex(())
    private static let byKey = Mutex<[String: SingleFlight]>([:])

    package static func forKey(_ key: String) -> SingleFlight {
        byKey.withLock { flights in
            if let flight = flights[key] { return flight }
            let flight = SingleFlight()
            flights[key] = flight
            return flight
        }
    }

    package func run<R>(_ body: () -> R) -> R {
        mutex.withLock { _ in body() }
    }
}
