import VersionGateCore

/// What the host asks of the helper (docs/design.md, "The helper's
/// protocol"): one request per helper process, every mode the helper runs.
/// The wire form is HelperMessage's records; this type and its kinds (each
/// in its own file, with its records) are the only code that writes or
/// reads them, and this is the only place the protocol's version is.
package enum HelperRequest: Sendable {
    /// A remote source's fetch: a check waiting for it, a refresh, or a
    /// background refresh nobody waits for.
    case fetch(ConfigFetch)
    /// Ask a channel and write its cache entry (docs/design.md, "Asking the
    /// channel"); the helper holds the host's lock on it, as descriptor 3.
    case channel(ChannelAsk)
    /// Update this app in place: a Flatpak through the portal, an AppImage by
    /// zsync delta, a distribution package through PackageKit.
    case update(Update)
    /// Start the newest installed version of this Flatpak app.
    case restart(Restart)
    /// Watch a source while the host listens (docs/design.md, "Watching a source").
    case watch(Watch)

    /// Bumped whenever a request or an answer changes shape: a helper from
    /// another build refuses rather than misreads.
    package static let protocolVersion = "9"

    private enum Mode: String {
        case fetch, refresh, background, channel, update, restart, watch
    }

    /// The protocol and the mode, then the kind's own records.
    package func message() -> HelperMessage {
        var message = HelperMessage()
        message.add("protocol", Self.protocolVersion)
        switch self {
        case .fetch(let fetch):
            message.add("mode", fetch.mode.rawValue)
            fetch.add(to: &message)
        case .channel(let ask):
            message.add("mode", Mode.channel.rawValue)
            ask.add(to: &message)
        case .update(let update):
            message.add("mode", Mode.update.rawValue)
            update.add(to: &message)
        case .restart(let restart):
            message.add("mode", Mode.restart.rawValue)
            restart.add(to: &message)
        case .watch(let watch):
            message.add("mode", Mode.watch.rawValue)
            watch.add(to: &message)
        }
        return message
    }

    /// The request `message` carries; a refusal names what is wrong with it.
    package static func decode(_ message: HelperMessage) -> Result<HelperRequest, GateFailure> {
        guard message.value("protocol") == protocolVersion else {
            return .failure(GateFailure(.internalError, "the helper speaks protocol \(protocolVersion), "
                                        + "not \(message.value("protocol") ?? "none")"))
        }
        let malformed = GateFailure(.internalError, "the helper's \(message.value("mode") ?? "") request is malformed")
        let request: HelperRequest?
        switch message.value("mode").flatMap(Mode.init(rawValue:)) {
        case .fetch, .refresh, .background: request = ConfigFetch(message).map { .fetch($0) }
        case .channel: request = ChannelAsk(message).map { .channel($0) }
        case .update: request = Update(message).map { .update($0) }
        case .restart: request = .restart(Restart(message))
        case .watch: request = Watch(message).map { .watch($0) }
        case nil:
            return .failure(GateFailure(.internalError, "the helper has no mode \(OneLine.quoted(message.value("mode") ?? "", max: 32))"))
        }
        guard let request else { return .failure(malformed) }
        return .success(request)
    }
}
