import VersionGateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One fetch at a time per remote source (by cache key) for the whole
/// process: the first check fetches, the others wait for its outcome,
/// success or failure, and use it (a failure is not retried by each waiter
/// in turn). A waiter stops waiting at its own deadline, however long the
/// fetch it waits for may take. No lock is held across the fetch, so a fork
/// child inherits none held (it is refused before reaching one anyway).
/// Waiters poll (0.5 ms, doubling to 5 ms): a condition variable would be
/// one more kind of lock for the sanitizers to model, for a wait that only
/// happens while a fetch is in flight.
///
/// The table holds its flights weakly: a flight lives as long as a source
/// that uses it, so a host that goes through ever-new sources (and frees
/// its clients) does not grow it without end.
package final class SingleFlight: Sendable {
    package typealias Outcome = Result<FetchedConfig, GateFailure>

    /// How a check took part in a flight.
    package enum Share {
        /// It fetched; the outcome is its own.
        case led(Outcome)
        /// Another check fetched meanwhile; this is its outcome.
        case waited(Outcome)
        /// Its deadline passed while another check was still fetching.
        case timedOut
    }

    private struct State {
        var flying = false
        var landings: UInt64 = 0
        var lastOutcome: Outcome?
    }
    private let state = Mutex(State())

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

    /// Runs `fetch`, or, while another thread runs it, waits for that
    /// thread's outcome until `deadline`.
    package func join(until deadline: Deadline, _ fetch: () -> Outcome) -> Share {
        let awaited: UInt64? = state.withLock { state in
            if state.flying { return state.landings }
            state.flying = true
            return nil
        }
        guard let awaited else {
            let outcome = fetch()
            state.withLock { state in
                state.flying = false
                state.landings &+= 1
                state.lastOutcome = outcome
            }
            return .led(outcome)
        }
        var pause: UInt32 = 500
        while true {
            let landed: Outcome?? = state.withLock { $0.landings == awaited ? nil : .some($0.lastOutcome) }
            if let landed { return landed.map(Share.waited) ?? .timedOut }
            let left = deadline.remainingMilliseconds
            guard left > 0 else { return .timedOut }
            usleep(min(pause, UInt32(min(left, 1000)) * 1000))
            pause = min(pause * 2, 5000)
        }
    }
}

/// What a flight leaves for the checks that waited on it.
package struct FetchedConfig: Sendable {
    package let entry: CachedConfig
    /// The cache file the entry was written to (see RemoteSource's Memo).
    package let identity: FileIdentity?
    /// freshFetch, or cacheHit when the cache had it after all.
    package let origin: LoadedConfig.Origin
    package let note: String?
}
