import VersionGateWire
/// Where a remote source's fetches run (docs/design.md, "The fetch helper").
package enum NetworkPlace: Sendable {
    /// In the fetch helper, a process of its own: every host of the library.
    case helper
    /// In this process, through `transport`: the fetch helper itself, which
    /// alone links one (libcurl's, in VersionGateNetwork).
    case here(any HTTPTransport)

    /// How a fetch made in this process sends its exchanges: through the
    /// helper when this process has no transport of its own.
    package var transport: any HTTPTransport {
        switch self {
        case .helper: HelperTransport()
        case .here(let transport): transport
        }
    }
}
