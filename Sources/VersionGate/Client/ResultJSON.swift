import FoundationEssentials

/// The JSON form of a result (vg_result_json). Every key is always present;
/// unknown values are null.
struct ResultJSON: Encodable {
    let result: GateResult
    init(_ result: GateResult) { self.result = result }

    private enum Key: String, CodingKey {
        case status, should_prompt, current, min_required, latest, title, message
        case action_label, dismiss_label, store_url, locale, error, error_name, error_message
        case source, origin, template_version, config_age_s, fetch_error, fetch_error_message, note
        case store_web_fallback, store_note
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(statusName(result.status), forKey: .status)
        try c.encode(result.shouldPrompt, forKey: .should_prompt)
        try c.encode(result.current, forKey: .current)
        try c.encode(result.minRequired?.string, forKey: .min_required)
        try c.encode(result.latest?.string, forKey: .latest)
        try c.encode(result.title?.string, forKey: .title)
        try c.encode(result.message?.string, forKey: .message)
        try c.encode(result.actionLabel?.string, forKey: .action_label)
        try c.encode(result.dismissLabel?.string, forKey: .dismiss_label)
        try c.encode(result.storeURL?.string, forKey: .store_url)
        try c.encode(result.language, forKey: .locale)
        try c.encode(result.errorCode, forKey: .error)
        try c.encode(errorName(result.errorCode), forKey: .error_name)
        try c.encode(result.errorMessage?.string, forKey: .error_message)
        try c.encode(result.source, forKey: .source)
        try c.encode(result.origin, forKey: .origin)
        try c.encode(result.templateVersion, forKey: .template_version)
        try c.encode(result.configAgeSeconds, forKey: .config_age_s)
        try c.encode(result.fetchFailure?.code ?? 0, forKey: .fetch_error)
        try c.encode(result.fetchFailure?.message, forKey: .fetch_error_message)
        try c.encode(result.note, forKey: .note)
        try c.encode(result.storeWebFallback, forKey: .store_web_fallback)
        try c.encode(result.storeNote, forKey: .store_note)
    }

    /// Never fails: an encoder error (a bug) still yields a valid object.
    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else {
            return #"{"status":"UP_TO_DATE","error":-5,"error_name":"VG_EINTERNAL"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}

func statusName(_ status: GateStatus) -> String {
    switch status {
    case .upToDate: return "UP_TO_DATE"
    case .optional: return "OPTIONAL"
    case .mandatory: return "MANDATORY"
    }
}
