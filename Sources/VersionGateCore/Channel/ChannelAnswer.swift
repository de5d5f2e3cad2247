/// What the user's own channel said when a MANDATORY decision asked it
/// (docs/design.md, "Asking the channel"): the newest version it serves
/// this system, or why it could not be asked. A class: a decision keeps
/// one reference, not four strings, so every check's result stays small.
package final class ChannelAnswer: Sendable {
    /// Which channel (declarations/channels.decl): a ChannelQuestion's, or
    /// `flatpakRemote`.
    package let channel: String
    /// Where exactly, for people: "latest/stable, amd64", a package name.
    package let detail: String
    /// The newest version it serves here, trimmed and valid; nil when it
    /// could not be asked (then `problem` says why).
    package let version: String?
    package let problem: String?

    /// The version `served` (any text a channel gave), or the problem that
    /// it is not one.
    package init(channel: String, detail: String, served: String) {
        (self.channel, self.detail) = (channel, detail)
        let trimmed = withVersion(served) { $0?.trimmedText }
        version = trimmed
        problem = trimmed == nil ? "it serves \(OneLine.quoted(served, max: 64)), which is not a valid version" : nil
    }

    package init(channel: String, detail: String, problem: String) {
        (self.channel, self.detail, self.version, self.problem) = (channel, detail, nil, problem)
    }

    /// The channel of the app's own Flatpak remote, which no question asks:
    /// its answer is the portal's NOTHING_NEW at update time.
    package static let flatpakRemote = "flatpak"

    /// "snap (latest/stable, amd64)".
    package var name: String { detail.isEmpty ? channel : "\(channel) (\(detail))" }
}
