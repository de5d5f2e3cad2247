/// How much a client's log callback hears (option `log_level`); each level
/// includes the ones before it. The raw values are the option's words; the
/// codes are the header's VG_LOG_* constants.
package enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// A fail-open caused by the operator's config or files.
    case error
    /// A fail-open caused by the network or the machine; a fallback used.
    case warning
    /// A fetch and its outcome, a store URL refused or replaced.
    case info
    /// Every step: cache hits, waits, the decision.
    case debug

    package var code: Int32 {
        switch self {
        case .error: return 1
        case .warning: return 2
        case .info: return 3
        case .debug: return 4
        }
    }

    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.code < b.code }
}
