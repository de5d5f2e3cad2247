import VersionGateCore

extension HelperRequest {
    /// A channel's question, with the entry the host read under its lock
    /// (docs/design.md, "Asking the channel").
    package struct ChannelAsk: Sendable {
        package var question: ChannelQuestion
        /// The exchange, conditional on the entry's validators.
        package var request: HTTPRequest
        /// The helper's own bound, not the host's deadline.
        package var limits: TransportLimits
        /// The entry the host read under the lock: the answer kept through a failure.
        package var previous: ChannelEntry
        /// Wall clock, Unix seconds: the host's, so both ends age alike.
        package var now: Int64
        /// Where the next entry is written: the versiongate directory of `cacheHome`, file `fileName`.
        package var cacheHome: String
        package var fileName: String

        package init(question: ChannelQuestion, request: HTTPRequest, limits: TransportLimits, previous: ChannelEntry,
                     now: Int64, cacheHome: String, fileName: String) {
            (self.question, self.request, self.limits, self.previous) = (question, request, limits, previous)
            (self.now, self.cacheHome, self.fileName) = (now, cacheHome, fileName)
        }

        /// Its records after the mode.
        func add(to message: inout HelperMessage) {
            for part in question.parts { message.add("question", part) }
            request.add(to: &message)
            limits.add(to: &message, as: .exchange)
            message.add("key", previous.key)
            message.add("architecture", previous.architecture)
            message.add("previous", String(decoding: previous.encoded(), as: UTF8.self))
            message.add("now", String(now))
            message.add("cache_home", cacheHome)
            message.add("file", fileName)
        }

        /// The question as `add` wrote it; nil when malformed.
        init?(_ message: HelperMessage) {
            guard let question = ChannelQuestion(parts: message.values("question")),
                  let request = HTTPRequest(message), let limits = TransportLimits(message, as: .exchange),
                  let key = message.value("key"), let architecture = message.value("architecture"),
                  let previous = message.value("previous").flatMap({
                      ChannelEntry.decode(Array($0.utf8), key: key, architecture: architecture) }),
                  let now = message.value("now").flatMap({ Int64(decimal: $0) }),
                  let cacheHome = message.value("cache_home"), let file = message.value("file") else { return nil }
            self.init(question: question, request: request, limits: limits, previous: previous, now: now,
                      cacheHome: cacheHome, fileName: file)
        }
    }
}
