/// What a remote source's fetch is for: a check waiting for it, a refresh
/// someone waits for (`vg_client_refresh`), or one behind a check that
/// nobody waits for. Its raw value is the helper request's mode.
package enum FetchMode: String, Sendable, CaseIterable {
    case fetchFirst = "fetch"
    case refresh
    case background
}
