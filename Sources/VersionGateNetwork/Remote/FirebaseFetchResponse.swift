import VersionGateCore
import VersionGateWire
import VersionGatePlatform

/// Remote Config's answer to a fetch (Tests/Fixtures/PROTOCOLS.md §1.5, §1.6): the
/// state decides the outcome; an error status carries Google's error body.
package enum FirebaseFetchResponse {
    package static func outcome(_ response: HTTPResponse, source: String, requestURL: String, note: String?)
        throws(FetchFailure) -> FetchOutcome {
        switch response.status {
        case 200:
            return try parse(response, source: source, note: note)
        case 304:
            // Not what the backend sends (it answers 200 NO_CHANGE), but JS accepts it.
            return .notModified(lifetime: nil, note: note)
        default:
            throw FetchFailure(httpFailure("\(source): HTTP \(response.status)\(GoogleErrorBody.detail(response.body))"),
                               throttled: CachingHeaders.isThrottling(response.status),
                               retryAfterSeconds: CachingHeaders.retryAfterSeconds(response.header("retry-after"),
                                                                                   url: requestURL))
        }
    }

    private static func parse(_ response: HTTPResponse, source: String, note: String?) throws(FetchFailure) -> FetchOutcome {
        let body: JSONValue
        do {
            body = try JSONValue.decode(response.body)
        } catch {
            throw FetchFailure(httpFailure("\(source): the fetch response \(error.message)"))
        }
        guard case .object(let members) = body else {
            throw FetchFailure(httpFailure("\(source): the fetch response is not a JSON object"))
        }
        if members.count == 1, members["error"] != nil {  // iOS reads such a 200 as a failure too
            throw FetchFailure(httpFailure("\(source): HTTP 200 with an error\(GoogleErrorBody.detail(response.body))"))
        }
        let templateVersion = Self.templateVersion(members["templateVersion"])
        switch members["state"] {
        case nil, .null?, .string("UPDATE")?:
            // No state: the legacy (V2) server; Android reads it as an update.
            return .updated(try config(members["entries"], templateVersion, source: source),
                            etag: CachingHeaders.etag(response.header("etag")), lifetime: nil, note: note)
        case .string("NO_CHANGE")?:
            return .notModified(lifetime: nil, note: note)
        case .string("EMPTY_CONFIG")?, .string("NO_TEMPLATE")?:
            return .empty(templateVersion: templateVersion, note: note)
        case .string("INSTANCE_STATE_UNSPECIFIED")?:
            // firebase-js-sdk turns it into a server error; so do we.
            throw FetchFailure(httpFailure("\(source): the server answered state INSTANCE_STATE_UNSPECIFIED (no config)"))
        case .string(let other)?:
            throw FetchFailure(httpFailure("\(source): unknown state \"\(OneLine.text(other, max: 64))\""))
        default:
            throw FetchFailure(httpFailure("\(source): the state is not a string"))
        }
    }

    /// `entries` (absent = no values): string values only, others reported.
    private static func config(_ entries: JSONValue?, _ templateVersion: Int64?, source: String)
        throws(FetchFailure) -> GateConfig {
        var config = GateConfig(templateVersion: templateVersion)
        switch entries {
        case nil, .null?:
            return config
        case .object(let members)?:
            for (key, value) in members {
                if case .string(let text) = value { config.values[key] = text } else { config.nonStringKeys.insert(key) }
            }
            return config
        default:
            throw FetchFailure(httpFailure("\(source): entries is not a JSON object"))
        }
    }

    /// An int64 as a decimal string (the wire format) or a JSON integer
    /// (firebase-js-sdk's tests); nil for anything else.
    package static func templateVersion(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text)?:
            return Int64(decimal: text)
        case .number(let number)? where number >= 0 && number <= 9_007_199_254_740_992:
            return Int64(exactly: number)
        default:
            return nil
        }
    }

    private static func httpFailure(_ message: String) -> GateFailure {
        GateFailure(.http, message)
    }
}

/// Google's error body, {"error":{"code","message","status","details"}}.
package enum GoogleErrorBody {
    /// " STATUS: message [REASON]", or "" when the body has none of them.
    package static func detail(_ body: [UInt8]) -> String {
        guard let value = try? JSONValue.decode(body), let error = value["error"] else { return "" }
        var text = ""
        if case .string(let status)? = error["status"], !status.isEmpty { text += " " + OneLine.text(status, max: 64) }
        if case .string(let message)? = error["message"], !message.isEmpty {
            text += ": " + OneLine.text(message, max: 300)
        }
        if case .array(let details)? = error["details"],
           let reason = details.lazy.compactMap({ detail -> String? in
               if case .string(let reason)? = detail["reason"] { reason } else { nil }
           }).first {
            text += " [\(OneLine.text(reason, max: 64))]"
        }
        return text
    }
}
