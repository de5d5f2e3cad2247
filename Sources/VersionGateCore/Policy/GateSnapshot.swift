import Synchronization

/// One config prepared for many checks, for one platform: thresholds
/// validated once and every text the result hands to C kept as a C string.
/// Building it is pure; every result comes from exactly one snapshot.
package final class GateSnapshot: Sendable {
    package let minRequired: CText?
    package let latest: CText?
    package let updateMessage: CText?
    /// The config's update_url_<platform> as written; the store resolver
    /// decides with the client's URL policy whether it may be used.
    package let updateURLText: String?
    /// Problems that did not stop the decision (an unusable threshold):
    /// the result reports them as VG_ECONFIG.
    package let problem: String?
    package let templateVersion: Int64?
    /// The last URL-policy verdict on updateURLText: clients rarely change
    /// policy, and judging a URL costs more than the whole rest of a check.
    private let urlVerdict = Mutex<(policy: StoreURLPolicy, refusal: String?)?>(nil)

    /// Why the client's `policy` refuses the config's update URL; nil when
    /// it is allowed or absent.
    package func updateURLRefusal(_ policy: StoreURLPolicy) -> String? {
        guard let url = updateURLText else { return nil }
        if let known = urlVerdict.withLock({ $0 }), known.policy == policy { return known.refusal }
        let refusal = policy.refusal(of: url)
        urlVerdict.withLock { $0 = (policy, refusal) }
        return refusal
    }

    package init(config: GateConfig, platform: String, documentName: String) {
        var problems: [String] = []

        func threshold(_ key: String) -> CText? {
            if config.nonStringKeys.contains(key) {
                problems.append("\(key) is not a JSON string; ignored")
                return nil
            }
            guard let raw = config.values[key], !raw.isEmpty else { return nil }
            guard let text = withVersion(raw, { $0?.trimmedText }) else {
                problems.append("\(key) \"\(OneLine.text(raw))\" is not a valid version; ignored")
                return nil
            }
            return CText(text)
        }
        minRequired = threshold(GateConfig.minRequiredKey(platform: platform))
        latest = threshold(GateConfig.latestKey(platform: platform))

        updateMessage = config.values[GateConfig.updateMessageKey]
            .flatMap(MessageSanitizer.sanitize).map(CText.init)

        updateURLText = config.values[GateConfig.updateURLKey(platform: platform)].flatMap { $0.isEmpty ? nil : $0 }

        templateVersion = config.templateVersion
        problem = problems.isEmpty ? nil : "\(documentName): " + problems.joined(separator: "; ")
    }
}
