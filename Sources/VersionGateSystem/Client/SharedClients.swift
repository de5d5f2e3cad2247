import VersionGateCore
import Synchronization

/// The process-wide client per source behind vg_check (the iOS design's
/// `.shared`). Bounded: past `limit` sources a throwaway client is used, so
/// a caller passing ever-new sources cannot grow memory without end.
package enum SharedClients {
    package static let limit = 64
    private static let clients = Mutex<[String: GateClient]>([:])

    package static func client(for source: String) -> Result<GateClient, GateFailure> {
        if let client = clients.withLock({ $0[source] }) { return .success(client) }
        let client = GateClient()
        do throws(GateFailure) {
            try client.set("source", source)
        } catch {
            return .failure(error)
        }
        return .success(clients.withLock { clients in
            if let existing = clients[source] { return existing }
            if clients.count < limit { clients[source] = client }
            return client
        })
    }
}
