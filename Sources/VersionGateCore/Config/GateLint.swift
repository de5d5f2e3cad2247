/// What `versiongate lint` finds in a gate document or a Remote Config
/// template export before it is published: everything the library would
/// ignore or refuse (the same checks, GateSnapshot's), and the mistakes it
/// would faithfully obey (a minimum above the latest version blocks every
/// user below it with nothing to update to). One line per problem.
package enum GateLint {
    package static func problems(_ bytes: [UInt8], platforms: [String]) -> [String] {
        let config: GateConfig
        do {
            config = try GateDocument.parse(bytes)
        } catch {
            return ["the document \(error.message)"]
        }
        var problems: [String] = []
        for platform in platforms {
            let snapshot = GateSnapshot(config: config, platform: platform, documentName: "")
            problems += snapshot.problems
            let minKey = GateConfig.minRequiredKey(platform: platform), latestKey = GateConfig.latestKey(platform: platform)
            if let min = snapshot.minRequired?.string, let latest = snapshot.latest?.string,
               let order = Version.compare(min, latest), order > 0 {
                problems.append("\(minKey) \(min) is above \(latestKey) \(latest): every user below \(min) is blocked "
                                + "with no newer version to update to")
            }
            if let latest = snapshot.latest?.string, snapshot.blockedVersions.contains(where: { Version.compare($0, latest) == 0 }) {
                problems.append("\(GateConfig.blockedVersionsKey(platform: platform)) blocks \(latestKey) \(latest): "
                                + "users are sent to update to a blocked version")
            }
            let urlKey = GateConfig.updateURLKey(platform: platform)
            if let url = snapshot.updateURLText, let why = StoreURLPolicy.standard.refusal(of: url) {
                problems.append("\(urlKey) \(OneLine.quoted(url)) is refused by the default URL policy: \(why)")
            }
        }
        // update_message and each update_message_<lang>; release_notes and each release_notes_<lang>.
        for key in config.values.keys.sorted() {
            if key == GateConfig.updateMessageKey || key.hasPrefix(GateConfig.updateMessageKey + "_") {
                problems += messageProblems(key, config.values[key] ?? "")
            } else if key == GateConfig.releaseNotesKey || key.hasPrefix(GateConfig.releaseNotesKey + "_") {
                problems += messageProblems(key, config.values[key] ?? "", maxBytes: MessageSanitizer.releaseNotesMaxBytes,
                                            maxLines: MessageSanitizer.releaseNotesMaxLines)
            }
        }
        problems += misspelledKeys(Set(config.values.keys).union(config.nonStringKeys), platforms: platforms)
        return problems
    }

    private static func messageProblems(_ key: String, _ message: String, maxBytes: Int = MessageSanitizer.maxBytes,
                                        maxLines: Int? = nil) -> [String] {
        var problems: [String] = []
        let bytes = message.utf8.count
        if bytes > maxBytes {
            problems.append("\(key) is \(bytes) bytes; only the first \(maxBytes) are shown")
        }
        let lines = message.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        if let maxLines, lines > maxLines {
            problems.append("\(key) has \(lines) lines; only the first \(maxLines) are shown")
        }
        let controls = message.unicodeScalars.filter(MessageSanitizer.removes)
        if !controls.isEmpty {
            problems.append("\(key) has \(controls.count) control or bidi override "
                            + "character(s); they are removed before it is shown")
        }
        return problems
    }

    /// A key within two edits of one the library reads for a linted
    /// platform: a typo that would silently do nothing. Keys further away
    /// (an app's own Remote Config parameters, another platform's keys) and
    /// per-language messages (`update_message_<lang>`) are left alone.
    private static func misspelledKeys(_ keys: Set<String>, platforms: [String]) -> [String] {
        let known = [GateConfig.updateMessageKey, GateConfig.releaseNotesKey] + platforms.flatMap { platform in
            [GateConfig.minRequiredKey(platform: platform), GateConfig.latestKey(platform: platform),
             GateConfig.updateURLKey(platform: platform), GateConfig.blockedVersionsKey(platform: platform),
             GateConfig.minEffectiveAtKey(platform: platform), GateConfig.rolloutPercentKey(platform: platform),
             GateConfig.minRequiresKey(platform: platform), GateConfig.latestRequiresKey(platform: platform),
             GateConfig.strictMinimumKey(platform: platform)]
        }
        return keys.sorted().compactMap { key in
            guard !known.contains(key), !key.hasPrefix(GateConfig.updateMessageKey + "_"),
                  !key.hasPrefix(GateConfig.releaseNotesKey + "_"), key.utf8.count <= 80 else {
                return nil
            }
            let near = known.map { (candidate: $0, distance: editDistance(Array(key.utf8), Array($0.utf8))) }
                .filter { $0.distance <= 2 }
                .min { $0.distance < $1.distance }
            return near.map { "unknown key \(OneLine.quoted(key)): did you mean \"\($0.candidate)\"?" }
        }
    }

    /// Levenshtein distance over bytes (keys are ASCII).
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
