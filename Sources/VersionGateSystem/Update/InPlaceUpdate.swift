import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import SystemShim
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Updating in place, the host's side (docs/design.md, "Updating in
/// place"): the helper talks to the portal (a Flatpak), rebuilds the
/// AppImage (docs/design.md, "Updating an AppImage by zsync") or asks
/// PackageKit (docs/design.md, "Updating a distribution package") and
/// streams its progress back; the host never loads GIO nor touches the network.
package enum InPlaceUpdate {
    private static let flatpakInfo = Sandbox.flatpakInfo   // the commit's file, and the refusal's words

    package struct Report: Sendable {
        package let outcome: UpdateOutcome
        /// Why, for every outcome but `installed`.
        package let message: String

        package init(_ outcome: UpdateOutcome, _ message: String) { (self.outcome, self.message) = (outcome, message) }
    }

    /// What this process can update in place: its Flatpak (the sandbox's
    /// `/.flatpak-info`, which the portal reads), else its AppImage, else
    /// its snap (inside a classic one, `snapName`, or a program under
    /// /snap), else the distribution package `distroPackage` names or
    /// that owns the app's program at `version` (PackageOwner): `program`,
    /// else this process's; else why none, for the store fallback's message.
    /// Where nothing may update (inside a strict snap, the Nix store, an
    /// rpm-ostree system, a Homebrew cask) the refusal says what works
    /// there, and nothing is asked (docs/design.md, "Updating a snap").
    package static func kind(sandbox: Sandbox, distroPackage: String?, program: String?, version: String?,
                             snapName: String? = nil, snapChannel: String? = nil,
                             ostreeBooted: Bool = InstallPlace.isOstreeBooted,
                             programOutput: (String, [String]) -> String? = ProgramOutput.read)
        -> Result<HelperRequest.Update.Kind, Refusal> {
        if sandbox.isFlatpakApp { return .success(.flatpak) }
        if let path = sandbox.appImage {
            if let cask = InstallPlace.homebrewCask(path) { return .failure(Refusal(InstallPlace.homebrewRemedy(cask))) }
            return .success(.appImage(path: path))
        }
        if sandbox.kind == .snap, let name = sandbox.snapName {
            guard SnapName.isValid(name) else {
                return .failure(Refusal("$SNAP_NAME \(OneLine.quoted(name, max: 64)) is not a snap's name"))
            }
            guard sandbox.isClassicSnap else {
                return .failure(Refusal(InstallPlace.strictSnapRemedy(name), outcome: .afterExit))
            }
            return .success(.snap(name: name, channel: snapChannel))
        }
        let path = program ?? MachinePaths.ownExecutable
        let target = resolved(path)
        if let name = snapName ?? SnapName.owning(programPath: path) ?? target.flatMap(SnapName.owning(programPath:)) {
            return .success(.snap(name: name, channel: snapChannel))
        }
        if InstallPlace.isNixStore(target ?? path) { return .failure(Refusal(InstallPlace.nixRemedy)) }
        // PackageKit does not run on an image-based system: never asked there.
        if ostreeBooted { return .failure(Refusal(InstallPlace.ostreeRemedy)) }
        if let distroPackage { return .success(.package(name: distroPackage)) }
        let why: String
        switch (target, version) {
        case (nil, _): why = "\(program ?? "this program")'s path cannot be resolved"
        case (_, nil): why = "the running version is unknown"
        case (let path?, _) where !path.hasPrefix("/usr/") && !path.hasPrefix("/opt/") || path.hasPrefix("/usr/local/"):
            why = "\(path) is not where packages install programs"
        case (let path?, let version?):
            switch PackageOwner.find(path: path, version: version, output: programOutput) {
            case .success(let name): return .success(.package(name: name))
            case .failure(let reason): why = reason.message
            }
        }
        return .failure(Refusal("neither inside a Flatpak (\(flatpakInfo) is missing) nor an AppImage ($APPIMAGE is unset) "
                                + "nor from a distribution package (\(why)): update from the store"))
    }

    /// How the app was installed, as the result's `install_kind` names it:
    /// what `kind` would update, from the same facts, without asking a
    /// package manager (a program where packages install programs counts
    /// as a package), and the installs nothing may update.
    package static func installKind(sandbox: Sandbox, program: String?, snapName: String?, distroPackage: String?,
                                    ostreeBooted: Bool = InstallPlace.isOstreeBooted) -> String {
        if sandbox.isFlatpakApp || sandbox.kind == .flatpak { return "flatpak" }
        if let path = sandbox.appImage { return InstallPlace.homebrewCask(path) == nil ? "appimage" : "homebrew" }
        if sandbox.kind == .snap || snapName != nil { return "snap" }
        let path = program ?? MachinePaths.ownExecutable
        let target = resolved(path)
        if SnapName.owning(programPath: path) ?? target.flatMap(SnapName.owning(programPath:)) != nil { return "snap" }
        if InstallPlace.isNixStore(target ?? path) { return "nix" }
        if ostreeBooted { return "ostree" }
        if distroPackage != nil { return "package" }
        if let target, target.hasPrefix("/usr/") && !target.hasPrefix("/usr/local/") || target.hasPrefix("/opt/") {
            return "package"
        }
        return "unknown"
    }

    /// Why nothing here can be updated in place, and what the caller does:
    /// open the store (`notFlatpak`), or open it and quit (`afterExit`).
    package struct Refusal: Error, Sendable {
        package let message: String
        package let outcome: UpdateOutcome
        package init(_ message: String, outcome: UpdateOutcome = .notFlatpak) {
            (self.message, self.outcome) = (message, outcome)
        }
    }

    /// `path` with its symbolic links resolved (a package owns the target).
    private static func resolved(_ path: String) -> String? {
        guard let path = realpath(path, nil) else { return nil }
        defer { free(path) }
        return String(validatingCString: path)
    }

    /// Updates this app through the helper. `onProgress` is called on this
    /// thread for each step; returning false cancels: this call returns at
    /// once; the portal may still finish installing in the background (its
    /// helper is left to see it through; see HelperProcess.call), an
    /// AppImage's helper stops at its next step and replaces nothing.
    package static func run(_ found: Result<HelperRequest.Update.Kind, Refusal>, limits: TransportLimits,
                            gitHubAPI: String, trustedKeys: String?, helper: any HelperDoor,
                            onProgress: (UpdateProgress) -> Bool) -> Report {
        let kind: HelperRequest.Update.Kind
        switch found {
        case .failure(let refusal): return Report(refusal.outcome, refusal.message)
        case .success(let found): kind = found
        }
        if let failure = helper.unavailable { return Report(.unavailable, failure.message) }
        let maxSeconds = HelperRequest.Update.defaultMaxSeconds
        let ran = helper.call(.update(HelperRequest.Update(kind: kind, maxSeconds: maxSeconds, limits: limits,
                                                                       gitHubAPI: gitHubAPI, trustedKeys: trustedKeys)),
                              until: Deadline(afterMilliseconds: (maxSeconds + 60) * 1000)) {
            if case .progress(let progress) = $0 { return onProgress(progress) }
            return true
        }
        switch (ran.map(\.answer), kind) {
        case (.failure(let failure), _): return Report(.failed, failure.message)
        case (.success(nil), .flatpak):
            return Report(.cancelled, "cancelled by the host (the portal may still finish installing the update)")
        case (.success(nil), .appImage):
            return Report(.cancelled, "cancelled by the host: the AppImage is unchanged")
        case (.success(nil), .package):
            return Report(.cancelled, "cancelled by the host: PackageKit's transaction is cancelled")
        case (.success(nil), .snap):
            return Report(.cancelled, "cancelled by the host: snapd's change is aborted")
        case (.success(.updated(let outcome, let message)?), _):
            return Report(outcome, message)
        case (.success(.failed(let failure)?), _): return Report(.failed, failure.message)
        case (.success(let other?), _): return Report(.failed, "the helper answered an update with \(other)")
        }
    }

    /// Starts the newest installed version of this app with `arguments` in
    /// `directory`, with this process's descriptors 0-2. With `wait`, waits
    /// for it to end and gives its exit status; else nil once it started.
    /// An AppImage is its file again (`arguments[0]` becomes its path), and
    /// an updated package's program is `arguments[0]` again (looked up in
    /// `$PATH` without a slash), in this process's directory, when
    /// `updatedPackage` (this client installed a package's or a snap's update).
    package static func restart(arguments: [String], directory: String, wait: Bool, updatedPackage: Bool,
                                system: System) -> Result<Int32?, GateFailure> {
        guard !arguments.isEmpty else { return .failure(.invalidArgument("no command to restart")) }
        let sandbox = system.sandbox
        if !sandbox.isFlatpakApp {
            if let path = sandbox.appImage { return system.processes.start(path, arguments: arguments, wait: wait) }
            guard updatedPackage else {
                return .failure(GateFailure(.update, "neither inside a Flatpak nor an AppImage, and no package or snap "
                                            + "was updated here: nothing to restart into"))
            }
            let program = arguments[0].contains("/") ? arguments[0]
                : POSIXProcesses.resolve(arguments[0], path: system.environment.value("PATH"))
            guard let program else { return .failure(GateFailure(.update, "\(arguments[0]) not found in $PATH")) }
            return system.processes.start(program, arguments: arguments, wait: wait)
        }
        let request = HelperRequest.Restart(directory: directory, wait: wait, arguments: arguments)
        switch system.helper.call(.restart(request), until: nil, handingOn: nil, passingStdio: true, onInterim: { _ in true })
            .map(\.answer) {
        case .failure(let failure): return .failure(GateFailure(.update, failure.message))
        case .success(.restarted(let status)?): return .success(status)
        case .success(.failed(let failure)?): return .failure(GateFailure(.update, failure.message))
        case .success(let other): return .failure(GateFailure(.update, "the helper answered a restart with \(String(describing: other))"))
        }
    }
}
