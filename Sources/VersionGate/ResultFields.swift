import VersionGateCore
import VersionGateSystem

/// The result's one schema: every key, and how to read it from a result.
/// vg_result_json writes these members in this order, vg_result_get answers
/// these keys, and Tests/python/test_result_schema.py holds the header's field
/// list, docs/api.md, the man page and the Python `Result` to it.
enum ResultValue {
    case text(String?)
    case number(Int64?)
    case flag(Bool)
    case list([String])

    /// vg_result_get's form: numbers in decimal, booleans true/false, a
    /// list one item per line, nil for null.
    var text: String? {
        switch self {
        case .text(let text): return text
        case .number(let number): return number.map { String($0) }
        case .flag(let flag): return flag ? "true" : "false"
        case .list(let items): return items.joined(separator: "\n")
        }
    }
}

struct ResultField {
    let key: String
    let value: @Sendable (GateResult) -> ResultValue
}

enum ResultFields {
    /// In alphabetical order of key, as the JSON writes them.
    static let all: [ResultField] = [
        ResultField(key: "action_label") { .text($0.actionLabel?.string) },
        ResultField(key: "blocked_versions") { result in
            .text(result.decision.snapshot.flatMap { $0.blockedVersions.isEmpty ? nil : join($0.blockedVersions, separator: ",") })
        },
        ResultField(key: "blocked_versions_key") { key($0, GateConfig.blockedVersionsKey) },
        ResultField(key: "channel") { .text($0.decision.channel?.channel) },
        ResultField(key: "channel_version") { .text($0.decision.channel?.version) },
        ResultField(key: "config_age_s") { .number($0.configAgeSeconds) },
        ResultField(key: "current") { .text($0.current) },
        ResultField(key: "dismiss_label") { .text($0.dismissLabel?.string) },
        ResultField(key: "error") { .number(Int64(errorCode($0.failure))) },
        ResultField(key: "error_message") { .text($0.errorMessage?.string) },
        ResultField(key: "error_name") { .text(errorName(errorCode($0.failure))) },
        ResultField(key: "fetch_error") { .number(Int64(errorCode($0.fetchFailure))) },
        ResultField(key: "fetch_error_message") { .text($0.fetchFailure?.message) },
        ResultField(key: "install_kind") { .text($0.installKind) },
        ResultField(key: "latest") { .text($0.latest?.string) },
        ResultField(key: "latest_key") { key($0, GateConfig.latestKey) },
        ResultField(key: "locale") { .text($0.language) },
        ResultField(key: "managed") { .flag($0.managed.isManaged) },
        ResultField(key: "managed_message") { .text($0.managed.message) },
        ResultField(key: "managed_url") { .text($0.managed.url) },
        ResultField(key: "message") { .text($0.message?.string) },
        ResultField(key: "min_required") { .text($0.minRequired?.string) },
        ResultField(key: "min_required_effective_at") {
            .text($0.decision.snapshot?.minEffectiveAt.map(RFC3339.text))
        },
        ResultField(key: "min_required_effective_at_key") { key($0, GateConfig.minEffectiveAtKey) },
        ResultField(key: "min_required_key") { key($0, GateConfig.minRequiredKey) },
        ResultField(key: "note") { .text($0.note) },
        ResultField(key: "origin") { .text(LoadedConfig.Origin.name($0.origin)) },
        ResultField(key: "policy_files") { .list($0.managed.files) },
        ResultField(key: "proxy") { .text($0.proxy) },
        ResultField(key: "proxy_from") { .text($0.proxyFrom) },
        ResultField(key: "reason") { .text($0.reason.string) },
        ResultField(key: "release_notes") { .text($0.releaseNotes?.string) },
        ResultField(key: "rollout_bucket") { .number($0.decision.rolloutBucket.map(Int64.init)) },
        ResultField(key: "rollout_percent") { .number($0.rolloutPercent.map(Int64.init)) },
        ResultField(key: "rollout_percent_key") { key($0, GateConfig.rolloutPercentKey) },
        ResultField(key: "rule") { .text($0.rule.nameText) },
        ResultField(key: "should_prompt") { .flag($0.shouldPrompt) },
        ResultField(key: "skip_label") { .text($0.skipLabel?.string) },
        ResultField(key: "source") { .text($0.source) },
        ResultField(key: "status") { .text($0.status.name) },
        ResultField(key: "store_note") { .text($0.storeNote) },
        ResultField(key: "store_url") { .text($0.storeURL?.string) },
        ResultField(key: "store_web_fallback") { .text($0.storeWebFallback) },
        ResultField(key: "template_version") { .number($0.templateVersion) },
        ResultField(key: "title") { .text($0.title?.string) },
    ]

    /// The operator key the decision read for a threshold, named for the
    /// snapshot's platform; nil when no config decided.
    private static func key(_ result: GateResult, _ name: (String) -> String) -> ResultValue {
        .text(result.decision.snapshot.map { name($0.platform) })
    }

    static let byKey: [String: ResultField] = Dictionary(all.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })

    /// The JSON form of a result (vg_result_json): every key, null for unknown values.
    static func json(_ result: GateResult) -> String {
        var json = JSONWriter()
        json.beginObject()
        for field in all {
            switch field.value(result) {
            case .text(let text): json.member(field.key, text)
            case .number(let number): json.member(field.key, number)
            case .flag(let flag): json.member(field.key, flag)
            case .list(let items): json.member(field.key, .array(items.map(JSONValue.string)))
            }
        }
        json.endObject()
        return json.text
    }
}
