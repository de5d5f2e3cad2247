// versiongate-helper: the one process where VersionGate touches the network
// and the portal (docs/design.md, "The fetch helper"). The library starts
// it with the request on stdin and a pipe for the answer on stdout; it
// alone links libcurl's and GIO's loaders (VersionGateNetwork), so the
// host cannot map them.
import VersionGateNetwork
#if canImport(Glibc)
import Glibc
#endif

// Someone at a terminal, not the library (its request comes through a pipe).
guard isatty(0) == 0 else {
    let usage = "usage: versiongate-helper < REQUEST\n(started by libversiongate; not a command to run by hand)\n"
    _ = write(2, usage, usage.utf8.count)
    exit(2)
}
// The host reads the answer; if it stopped listening (its deadline), say nothing, end quietly.
signal(SIGPIPE, SIG_IGN)
exit(HelperService.serve(input: 0, output: 1))
