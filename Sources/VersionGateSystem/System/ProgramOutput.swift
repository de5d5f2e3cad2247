import VersionGateCore
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// What a program prints: the System's `programOutput` (who owns a program,
/// PackageOwner).
package enum ProgramOutput {
    /// The program's standard output (at most 64 KiB) when it exits 0; nil
    /// otherwise. C locale, and a PATH of the system's directories only.
    @Sendable package static func read(_ program: String, _ arguments: [String]) -> String? {
        var pipeEnds: [Int32] = [-1, -1]
        guard vg_system_pipe(&pipeEnds, O_CLOEXEC) == 0 else { return nil }
        // C locale: dpkg-query's messages and formats as documented.
        var start = ProgramStart(program, arguments: [program] + arguments,
                                 environment: ["LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        start.output = pipeEnds[1]
        let started = start.start()
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard case .success(let pid) = started else { return nil }
        let bytes = readToEnd(pipeEnds[0], maxBytes: 1 << 16)
        if bytes == nil { kill(pid, SIGKILL) }   // more than any owner's answer: it must not block on a full pipe
        guard ProgramStart.waitForExit(pid) == 0, let bytes else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
