import VersionGateCore
import SystemShim

/// A fork() child of the process that loaded the library inherits its locks
/// and memory in whatever state another thread left them (a fetch in
/// flight holds one), so it is refused before anything is touched: every
/// client call fails open with VG_EFORK. The pure functions (compare,
/// decide, strerror, result getters and frees) need no state and still work.
package enum ForkGuard {
    /// Why this process may not use the library's state; nil when it may.
    package static var refusal: GateFailure? {
        guard vg_system_is_fork_child() != 0 else { return nil }
        return GateFailure(.forked, "this process is a fork() child of the one that loaded the library: "
                           + "checks fail open there (exec, or load the library after the fork)")
    }
}
