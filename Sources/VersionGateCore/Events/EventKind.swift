/// What an event tells the host (docs/design.md, "Events"). Append-only:
/// the header documents each kind and its fields, and a host may rely on them.
/// scripts/generate writes the cases from declarations/events.decl.
package enum EventKind: String, Sendable {
    // BEGIN GENERATED events (scripts/generate)
    /// Every check: the decision.
    case decided
    /// What the user did with a prompt (vg_client_report).
    case outcome
    /// A version newer than one that was prompted came back: the update took.
    case updateConfirmed = "update_confirmed"
    /// An update in place began (vg_client_update).
    case updateStarted = "update_started"
    /// The update in place installed the new version.
    case updateInstalled = "update_installed"
    /// The update in place did not install: the outcome and why.
    case updateFailed = "update_failed"
    // END GENERATED events
}

/// What a host reports of its prompt (vg_client_report), as the `outcome`
/// event spells it. Append-only, like EventKind.
package enum ReportedOutcome: String, Sendable, CaseIterable {
    case shown, update, later, skip, dismissed
    /// The store URL was handed to the desktop, or could not be.
    case storeOpened = "store_opened"
    case storeOpenFailed = "store_open_failed"

    /// An outcome about the store URL: its event names the URL.
    package var concernsStore: Bool { self == .storeOpened || self == .storeOpenFailed }
}
