import VersionGateCore

/// What NOTHING_NEW told a client, per version checked (docs/design.md,
/// "Asking the channel"): its own update's answer, or what an earlier
/// launch's file said, read once per client and version, so a host that
/// checks several blocked versions in turn reads no file at a warm check
/// (docs/design.md, "The decision"). A few versions at most: a host checks one app or a handful.
struct NothingNewMemo: Sendable {
    /// How many versions are kept; the oldest goes first.
    static let capacity = 8

    /// Keyed by the version's text as checked: a warm check makes no String.
    private var entries: [(version: VersionText, answer: ChannelAnswer?)] = []

    /// Whether `version` is known, and its answer (nil: there is none).
    func lookup(_ version: VersionText) -> (known: Bool, answer: ChannelAnswer?) {
        for entry in entries where entry.version == version { return (true, entry.answer) }
        return (false, nil)
    }

    /// The file's answer for `version`, unless one is known already (an
    /// update on another thread meanwhile wins over the file); the answer
    /// that stands.
    mutating func read(_ version: VersionText, _ answer: ChannelAnswer?) -> ChannelAnswer? {
        let known = lookup(version)
        if known.known { return known.answer }
        keep(version, answer)
        return answer
    }

    /// This client's update's answer for `version`: it wins.
    mutating func updated(_ version: VersionText, _ answer: ChannelAnswer) {
        entries.removeAll { $0.version == version }
        keep(version, answer)
    }

    private mutating func keep(_ version: VersionText, _ answer: ChannelAnswer?) {
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append((version, answer))
    }
}
