import VersionGateCore

/// What a client's results tell of the administrator's policy (docs/design.md,
/// "The administrator's policy"): made once per client settings, shared by
/// every result, so a warm check costs the same with a policy or without.
package final class ManagedFacts: Sendable {
    /// The keys that apply to this client's app.
    package let keys: AdministratorPolicy.Keys
    /// The files that counted, in reading order.
    package let files: [String]

    /// The file that sets `mandatory: warn`, and the one that shows no
    /// OPTIONAL prompt: made here, so a check reads one reference each
    /// instead of copying a key out.
    package let mandatoryWarnFile: String?
    package let quietOptionalFile: String?

    package init(keys: AdministratorPolicy.Keys, files: [String]) {
        (self.keys, self.files) = (keys, files)
        mandatoryWarnFile = keys.mandatory.flatMap { $0.value == .warn ? $0.file : nil }
        quietOptionalFile = keys.optionalPrompts.flatMap { $0.value ? nil : $0.file }
    }

    package static let none = ManagedFacts(keys: AdministratorPolicy.Keys(), files: [])

    package var isManaged: Bool { !files.isEmpty }
    package var message: String? { keys.managedMessage?.value }
    package var url: String? { keys.managedURL?.value }
    /// A MANDATORY shows the administrator's text and link instead of the store.
    package var replacesStore: Bool { keys.managedMessage != nil || keys.managedURL != nil }
    /// Why Update installs nothing here; nil when it may.
    package var noUpdateInPlace: String? {
        if let setting = keys.inPlaceUpdates, !setting.value {
            return "the administrator's policy (\(setting.file)) allows no update in place"
        }
        if let setting = keys.network, !setting.value {
            return "the administrator's policy (\(setting.file)) allows no network"
        }
        return nil
    }
}
