import VersionGateCore
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// What this process is: its command line, its directory, the Flatpak
/// commit it runs. Read from files the kernel or bubblewrap made, as they are.
package enum ProcessFacts {
    /// The commit this sandbox runs (`app-commit` in /.flatpak-info), if known.
    package static var flatpakCommit: String? {
        guard let bytes = readSmall(Sandbox.flatpakInfo) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("app-commit=") {
            return String(line.dropFirst("app-commit=".count))
        }
        return nil
    }

    /// This process's own command line, with the program as its full path
    /// (/proc/self/exe): what a restart runs when the host gives none.
    package static var ownArguments: [String]? {
        guard let bytes = readSmall(MachinePaths.ownCommandLine),
              let executable = realpath(MachinePaths.ownExecutable, nil) else { return nil }
        defer { free(executable) }
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if arguments.last == "" { arguments.removeLast() }
        guard !arguments.isEmpty else { return nil }
        arguments[0] = String(cString: executable)
        return arguments
    }

    package static var currentDirectory: String? {
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return String(validatingCString: directory)
    }

    /// A file the kernel or bubblewrap made, at most 1 MiB.
    private static func readSmall(_ path: String) -> [UInt8]? {
        let fd = vg_system_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readToEnd(fd, maxBytes: 1 << 20)
    }
}
