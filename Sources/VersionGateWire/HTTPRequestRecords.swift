import VersionGateCore

/// An HTTP request as the records of a request that carries one: the
/// host's exchange and a channel's question.
extension HTTPRequest {
    func add(to message: inout HelperMessage) {
        message.add("url", url)
        if let body { message.add("body", Hex.encoded(body)) }
        for header in headers { message.add("header", header.name + ": " + header.value) }
        if credentialsStayWithOrigin { message.add("credentials", "1") }
    }

    /// The request as `add` wrote it; nil without a URL or with a body that is not hex.
    init?(_ message: HelperMessage) {
        guard let url = message.value("url") else { return nil }
        var body: [UInt8]?
        if let hex = message.value("body") {
            guard let bytes = Hex.decoded(hex) else { return nil }
            body = bytes
        }
        self.init(url: url, body: body, headers: message.values("header").map(HelperMessage.header),
                  credentialsStayWithOrigin: message.value("credentials") == "1")
    }
}
