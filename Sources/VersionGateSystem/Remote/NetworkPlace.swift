/// Where a remote source's fetches run (docs/design.md, "The fetch helper").
package enum NetworkPlace: Sendable {
    /// In the fetch helper, a process of its own: every host of the library.
    case helper
    /// In this process, through the source's transport: the fetch helper
    /// itself, and tests that walk a source on a clock of their own.
    case inProcess
}
