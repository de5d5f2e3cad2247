import VersionGateCore
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// The one way the library starts a program (docs/design.md, "Starting
/// processes"): `vg_system_spawn_keeping` with an argument vector, never a
/// shell; stdin and stdout as given (else /dev/null), stderr /dev/null
/// unless a flag keeps the host's, no other descriptor but `kept`.
package struct ProgramStart {
    package var executable: String
    /// The program's argv: the first is its name.
    package var arguments: [String]
    /// `name=value` each; nil: this process's own environment.
    package var environment: [String]?
    package var input: Int32 = -1
    package var output: Int32 = -1
    /// A descriptor the program keeps as its next one (3, or 6 with VG_SPAWN_PASS_STDIO).
    package var kept: Int32 = -1
    /// VG_SPAWN_* flags.
    package var flags: Int32

    package init(_ executable: String, arguments: [String], environment: [String]? = nil, flags: Int32 = 0) {
        (self.executable, self.arguments, self.environment, self.flags) = (executable, arguments, environment, flags)
    }

    /// The program's pid once it runs (once forked, when detached); else the errno of what failed.
    package func start() -> Result<pid_t, StartError> {
        let argv = CStringArray(arguments)
        let envp = environment.map(CStringArray.init)
        var pid: pid_t = 0
        let error = withExtendedLifetime((argv, envp)) {
            vg_system_spawn_keeping(executable, argv.vector, envp?.vector ?? UnsafePointer(vg_system_environ()), input,
                                    output, kept, flags, &pid)
        }
        return error == 0 ? .success(pid) : .failure(StartError(code: error))
    }

    package struct StartError: Error, Sendable {
        package let code: Int32
        /// As an operator reads it.
        package var text: String { String(cString: strerror(code)) }
    }

    /// Waits for `pid`, a child of this process that is not detached, to
    /// end: its exit status as a shell tells it (128 + the signal that
    /// ended it); nil when its status was collected elsewhere.
    package static func waitForExit(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard systemErrno == EINTR else { return nil }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift cannot import (macros).
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
