import VersionGateCore
import Synchronization

/// One lock per remote source (by cache key) for the whole process, so
/// concurrent checks on any number of clients make one request: the first
/// fetches, the others wait and then find the fresh cache.
///
/// The table holds its flights weakly: a flight lives as long as a source
/// that uses it, so a host that goes through ever-new sources (and frees
/// its clients) does not grow it without end.
package final class SingleFlight: Sendable {
    private let mutex = Mutex(())

    private struct Entry {
        weak var flight: SingleFlight?
    }
    private struct Table {
        var entries: [String: Entry] = [:]
        /// Size at which an insert first drops the dead entries: twice what
        /// was alive at the last sweep, so sweeping costs O(1) per insert.
        var sweepAt = 64
    }
    private static let table = Mutex(Table())

    package static func forKey(_ key: String) -> SingleFlight {
        table.withLock { table in
            if let flight = table.entries[key]?.flight { return flight }
            if table.entries.count >= table.sweepAt {
                table.entries = table.entries.filter { $0.value.flight != nil }
                table.sweepAt = max(64, 2 * table.entries.count)
            }
            let flight = SingleFlight()
            table.entries[key] = Entry(flight: flight)
            return flight
        }
    }

    /// Entries in the table, dead ones included (for tests).
    package static var tableSize: Int { table.withLock { $0.entries.count } }

    package func run<R>(_ body: () -> R) -> R {
        mutex.withLock { _ in body() }
    }
}
