/// One event as the JSON object the host receives: `event`, `time`
/// (RFC 3339, UTC), `source`, `platform`, `current`, then the kind's own
/// members in the order given. Written by the library's one JSONWriter.
package enum EventJSON {
    /// What every event of one check or report shares.
    package struct Context: Sendable {
        package var time: Int64
        package var source: String?
        package var platform: String
        package var current: String?

        package init(time: Int64, source: String?, platform: String, current: String?) {
            (self.time, self.source, self.platform, self.current) = (time, source, platform, current)
        }
    }

    package static func text(_ kind: EventKind, _ context: Context, _ members: [(String, JSONValue)]) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.member("event", kind.rawValue)
        json.member("time", RFC3339.text(context.time))
        json.member("source", context.source)
        json.member("platform", context.platform)
        json.member("current", context.current)
        for (key, value) in members { json.member(key, value) }
        json.endObject()
        return json.text
    }

    /// A text member, or null.
    package static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
