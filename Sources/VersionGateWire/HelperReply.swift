import VersionGateCore

/// What a call to the helper brought back: its final answer (nil when the
/// host stopped listening, or the helper ended without one) and the route
/// of its last request (docs/design.md, "The desktop's proxy"): "direct",
/// or "scheme://host:port from ORIGIN"; nil when it made none.
package struct HelperReply: Sendable {
    package var answer: HelperAnswer?
    package var route: String?

    package init(_ answer: HelperAnswer?, route: String? = nil) {
        (self.answer, self.route) = (answer, route)
    }

    /// The final answer and route in `message`; nil when it holds no answer.
    package init?(_ message: HelperMessage) {
        guard let answer = HelperAnswer.decode(message) else { return nil }
        self.init(answer, route: message.value("proxy"))
    }
}
