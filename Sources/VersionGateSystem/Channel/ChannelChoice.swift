import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Which of the user's channels a blocked check asks (docs/design.md,
/// "Asking the channel"), from the options and the sandbox: pure choice,
/// no file read but `program`'s owner.
package enum ChannelChoice {
    /// Whether any channel could be known: options that name one, a snap,
    /// or a Flatpak (its remote's answer at Update). Cheap: read first.
    package static func mayAsk(_ options: ClientOptions, _ sandbox: Sandbox) -> Bool {
        if options.distroPackage != nil || options.program != nil || options.snapName != nil || sandbox.isFlatpakApp {
            return true
        }
        switch options.store {   // a switch: this enum's != is a generic call
        case .url: return sandbox.snapName != nil
        case .flathub, .snap, .appstore: return true
        }
    }

    /// The channel to ask; nil when none is known (then nothing is asked).
    /// `distro_package` first (the operator named the package), then a snap
    /// (inside one, or `store=snap`), then `store=flathub` and `store=appstore`,
    /// then the package that owns `program` at `version` (the same lookup as
    /// Update's: dpkg-query -S, only when a block asks).
    package static func question(_ options: ClientOptions, _ system: System, country: String,
                                 version: String? = nil) -> ChannelQuestion? {
        let (environment, sandbox) = (system.environment, system.sandbox)
        if let package = options.distroPackage { return .apt(package: package, architecture: architecture) }
        if let name = sandbox.snapName ?? options.snapName ?? (options.store == .snap ? options.appID : nil) {
            return .snap(name: name, architecture: environment.value("SNAP_ARCH") ?? architecture)
        }
        switch options.store {
        case .flathub:
            return (options.appID ?? environment.value("FLATPAK_ID")).map { .flathub(appID: $0) }
        case .appstore:
            return options.appID.map { .appStore(bundleID: $0, country: country) }
        case .snap, .url:
            guard let program = options.program, let version,
                  case .success(.package(let name)) = InPlaceUpdate.kind(sandbox: sandbox, distroPackage: nil, program: program,
                                                                         version: version,
                                                                         programOutput: system.programOutput)
            else { return nil }
            return .apt(package: name, architecture: architecture)
        }
    }

    /// This machine's Debian architecture: an entry is kept per architecture.
    package static var architecture: String { ChannelArchitecture.debian(machine: SystemFactsReader.current.arch ?? "") }
}
