import VersionGateCore

/// The limits as a request's records, written and read here alone for
/// every request that carries them (docs/design.md, "The helper's protocol").
extension TransportLimits {
    /// Which of the limits a request carries.
    enum WireForm {
        /// An exchange's or a fetch's: the timeout and body bound are both needed.
        case exchange
        /// An update's: each of its fetches sets its own body bound (the
        /// control file, the ranges, snapd's answers), so none is sent,
        /// and a timeout left out is the default.
        case update
    }

    func add(to message: inout HelperMessage, as form: WireForm) {
        message.add("timeout_ms", String(timeoutMs))
        if form == .exchange { message.add("max_body_bytes", String(maxBodyBytes)) }
        if let caFile { message.add("ca_file", caFile) }
        message.add("proxy", proxy.text)
    }

    /// The limits as `add` wrote them in `form`; nil when one that must be there is not.
    init?(_ message: HelperMessage, as form: WireForm) {
        self.init()
        guard let proxy = message.value("proxy").flatMap({ try? ProxyRules.Setting(parsing: $0) }) else { return nil }
        let timeout = message.value("timeout_ms").flatMap(HelperMessage.integer)
        switch form {
        case .exchange:
            guard let timeout, let maxBody = message.value("max_body_bytes").flatMap(HelperMessage.integer) else { return nil }
            (timeoutMs, maxBodyBytes) = (timeout, maxBody)
        case .update:
            timeoutMs = timeout ?? timeoutMs
        }
        (caFile, self.proxy) = (message.value("ca_file"), proxy)
    }
}
