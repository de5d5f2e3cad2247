/// The machine's own files the library reads, named here once: outside
/// this folder the host reaches them only through the System value
/// (scripts/check_layers), so a test can give it others.
package enum MachinePaths {
    /// The administrator's policy (docs/design.md, "The administrator's policy").
    package static let policyDirectory = "/etc/versiongate"
    /// apt's package lists: a distribution package's channel.
    package static let aptLists = "/var/lib/apt/lists"
    /// An image-based system (rpm-ostree, Silverblue) has it.
    package static let ostreeBooted = "/run/ostree-booted"
    /// Who owns a program: asked at their system paths, never `$PATH`.
    package static let dpkgQuery = "/usr/bin/dpkg-query"
    package static let rpm = "/usr/bin/rpm"
    /// This process's program and command line.
    package static let ownExecutable = "/proc/self/exe"
    package static let ownCommandLine = "/proc/self/cmdline"
}
