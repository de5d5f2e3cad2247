import VersionGateCore
import VersionGateWire

/// What happened when a URL was handed to the desktop.
package struct URLOpenResult: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// `xdg-open` exited 0.
        case opened
        /// `xdg-open` was started but had not exited at the deadline (with
        /// `$BROWSER` it may *be* the browser). Left running.
        case launched
        /// The policy refused the URL: nothing was run.
        case refused
        /// `xdg-open` could not be started, exited non-zero, was killed, or
        /// its exit status cannot be known (a host that ignores SIGCHLD has
        /// its children reaped by the kernel).
        case failed
    }
    package var outcome: Outcome
    /// The URL handed to `xdg-open` last (the web fallback after a retry).
    package var url: String?
    /// `xdg-open`'s exit status when it exited normally.
    package var exitStatus: Int32?
    package var message: String
}

/// Opens a store URL with `xdg-open` (docs/design.md, "Where to update") through the System's
/// ProcessLauncher (an argument vector, no shell, a bounded wait; see
/// POSIXProcesses), after the URL policy has accepted it.
///
/// xdg-open exits 3 ("a required tool could not be found") or 4 ("the action
/// failed") when no handler exists for `appstream:` / `snap:` / `itms-apps:`;
/// then the https web fallback is opened once instead.
package enum URLOpener {
    package static let program = "xdg-open"
    /// xdg-open(1) exit codes that mean "no handler" for a scheme.
    package static let noHandlerStatuses: Set<Int32> = [3, 4]

    /// vg_open_url (the default policy) and vg_client_open_url (the
    /// client's): an `appstream:` or `snap:` URL's store web page as its
    /// fallback; waits at most 5 s.
    package static func open(_ url: String, policy: StoreURLPolicy = .standard) -> URLOpenResult {
        open(url, policy: policy, webFallback: webPage(for: url), timeoutMs: 5000, processes: System.live.processes)
    }

    /// The https page of a store URL, for when no handler opens its scheme.
    package static func webPage(for url: String) -> String? {
        let forms: [(prefix: String, store: StoreKind)] = [("appstream:", .flathub), ("snap://", .snap), ("snap:", .snap)]
        guard let form = forms.first(where: { url.hasPrefix($0.prefix) }) else { return nil }
        let id = String(url.dropFirst(form.prefix.count))
        return try? form.store.links(appID: id).get().webFallback
    }

    package static func open(_ url: String, policy: StoreURLPolicy, webFallback: String?, timeoutMs: Int,
                             processes: any ProcessLauncher) -> URLOpenResult {
        if let why = refusal(url, policy) {
            return URLOpenResult(outcome: .refused, url: nil, exitStatus: nil, message: "\(OneLine.quoted(url)) refused: \(why)")
        }
        let deadline = Deadline(afterMilliseconds: min(max(timeoutMs, 0), 600_000))
        let first = run(url, deadline, processes)
        guard first.outcome == .failed, let status = first.exitStatus, noHandlerStatuses.contains(status),
              !url.lowercased().hasPrefix("https:"), let webFallback else { return first }
        guard webFallback.lowercased().hasPrefix("https:"), refusal(webFallback, policy) == nil else {
            return URLOpenResult(outcome: .failed, url: url, exitStatus: status,
                                 message: first.message + "; web fallback \(OneLine.quoted(webFallback)) refused")
        }
        var second = run(webFallback, deadline, processes)
        second.message = first.message + "; then " + second.message
        return second
    }

    /// The policy, plus the one rule xdg-open itself needs: an argument
    /// starting with `-` would be read as an option.
    private static func refusal(_ url: String, _ policy: StoreURLPolicy) -> String? {
        if url.hasPrefix("-") { return "starts with -" }
        return policy.refusal(of: url)
    }

    private static func run(_ url: String, _ deadline: Deadline, _ processes: any ProcessLauncher) -> URLOpenResult {
        func result(_ outcome: URLOpenResult.Outcome, _ status: Int32?, _ what: String) -> URLOpenResult {
            URLOpenResult(outcome: outcome, url: url, exitStatus: status, message: "\(program) \(OneLine.quoted(url)): \(what)")
        }
        switch processes.run(program, url, until: deadline) {
        case .cannotStart(let code): return result(.failed, nil, "cannot start (\(POSIXProcesses.describe(code, program)))")
        case .killed(let signal): return result(.failed, nil, "killed by signal \(signal)")
        case .exited(0): return result(.opened, 0, "opened")
        case .exited(let code): return result(.failed, code, "exited with status \(code)")
        case .statusUnavailable:
            // Not a success we can vouch for, so not reported as one (nor is the web page tried).
            return result(.failed, nil, "started, but its exit status is not available (does the host ignore SIGCHLD?)")
        case .stillRunning: return result(.launched, nil, "started; still running at the deadline")
        }
    }
}
