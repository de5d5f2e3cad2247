import VersionGateCore
import VersionGateSystem

/// The JSON form of a result (vg_result_json). Every key is always present;
/// unknown values are null. Keys in alphabetical order.
struct ResultJSON {
    let result: GateResult
    init(_ result: GateResult) { self.result = result }

    func encoded() -> String {
        var json = JSONWriter()
        json.beginObject()
        json.member("action_label", result.actionLabel?.string)
        json.member("config_age_s", result.configAgeSeconds)
        json.member("current", result.current)
        json.member("dismiss_label", result.dismissLabel?.string)
        json.member("skip_label", result.skipLabel?.string)
        json.member("error", Int64(errorCode(result.failure)))
        json.member("error_message", result.errorMessage?.string)
        json.member("error_name", errorName(errorCode(result.failure)))
        json.member("fetch_error", Int64(errorCode(result.fetchFailure)))
        json.member("fetch_error_message", result.fetchFailure?.message)
        json.member("latest", result.latest?.string)
        json.member("locale", result.language)
        json.member("message", result.message?.string)
        json.member("min_required", result.minRequired?.string)
        json.member("note", result.note)
        json.member("origin", result.origin)
        json.member("rollout_percent", result.rolloutPercent.map(Int64.init))
        json.member("should_prompt", result.shouldPrompt)
        json.member("source", result.source)
        json.member("status", result.status.name)
        json.member("store_note", result.storeNote)
        json.member("store_url", result.storeURL?.string)
        json.member("store_web_fallback", result.storeWebFallback)
        json.member("template_version", result.templateVersion)
        json.member("title", result.title?.string)
        json.endObject()
        return json.text
    }
}
