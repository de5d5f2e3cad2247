import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import Synchronization

/// What the user said about OPTIONAL prompts, kept across login sessions
/// (docs/design.md, "Sessions, skip and remind"): "skip this version" and the time of the last prompt for
/// `remind_after_s`. One pair of small files per source and platform under
/// `$XDG_STATE_HOME/versiongate/`, read and written through PrivateDirectory
/// (the user's own 0700 directory, no symlinks, atomic replace), so a file
/// another user could have planted is never used. Never consulted for
/// MANDATORY: only `claim` below reads it, and only for OPTIONAL. A class:
/// a client keeps one per source and options (ResultFrame).
package final class PromptState: Sendable {
    private let directory: PrivateDirectory
    /// The files' names and the skip file's path, made once.
    private let skipName, remindName, skipPath: String
    private static let maxFileBytes = 512

    /// nil when there is no state directory ($XDG_STATE_HOME and $HOME unset
    /// or relative).
    package init?(source: String, platform: String, environment: CheckEnvironment, files: any FileSystem) {
        guard let directory = PrivateDirectory(base: environment.stateHome, files: files) else {
            return nil
        }
        self.directory = directory
        let key = fnv1a64Hex(source + "\u{0}" + platform)
        (skipName, remindName) = ("skip-\(key)", "prompted-\(key)")
        skipPath = directory.filePath(skipName)
    }

    /// The latest version the user skipped (trimmed text), or nil. Every
    /// OPTIONAL check asks: a file read and trusted before is not read
    /// again while its identity is unchanged (one stat instead of an open
    /// of the directory and the file; BENCHMARKS.md, prompting check).
    package func skippedVersion() -> String? {
        let path = skipPath
        guard let identity = directory.files.identity(of: path) else { return nil }
        if let known = Self.skips.withLock({ $0[path] }), known.identity == identity { return known.version }
        guard let bytes = directory.read(skipName, maxBytes: Self.maxFileBytes) else { return nil }
        let version = withVersion(String(decoding: bytes, as: UTF8.self)) { $0?.trimmedText }
        if !directory.files.isRecentlyChanged(identity) {
            Self.skips.withLock { skips in
                if skips.count >= 64 { skips.removeAll() }   // one per source and platform in use
                skips[path] = (identity, version)
            }
        }
        return version
    }

    private static let skips = Mutex<[String: (identity: FileIdentity, version: String?)]>([:])

    /// Records "skip `version`" (a valid version, trimmed); false when the
    /// state directory cannot be written.
    package func skip(_ version: String) -> Bool {
        directory.write(skipName, Array((version + "\n").utf8))
    }

    /// When the library last said to prompt for OPTIONAL (Unix seconds).
    package func lastPrompt() -> Int64? {
        guard let bytes = directory.read(remindName, maxBytes: Self.maxFileBytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return Int64(decimal: String(text.prefix { $0 != "\n" }))
    }

    package func recordPrompt(at now: Int64) {
        directory.write(remindName, Array("\(now)\n".utf8))
    }

    /// Whether an OPTIONAL for `latest` prompts now: not when the user
    /// skipped it, not within `remindAfter` seconds of the last prompt
    /// (PromptRules), else whatever the session says.
    package func claim(latest: String?, now: Int64, remindAfter: Int64, record: Bool = true,
                       session: () -> PromptClaim) -> PromptClaim {
        if let latest, let skipped = skippedVersion(), PromptRules.isSkipped(latest: latest, skipped: skipped) {
            return PromptClaim(shouldPrompt: false, note: "version \(skipped) skipped by the user")
        }
        guard remindAfter > 0 else { return session() }
        if let last = lastPrompt(), let since = PromptRules.sinceLastPrompt(last, now: now, remindAfter: remindAfter) {
            return PromptClaim(shouldPrompt: false,
                               note: "prompted \(since) s ago; remind_after_s \(remindAfter) (next prompt after \(last &+ remindAfter))")
        }
        let claim = session()
        if claim.shouldPrompt && record { recordPrompt(at: now) }
        return claim
    }
}

extension GateClient {
    /// "Skip this version" (vg_client_skip_version): no OPTIONAL prompt for
    /// `version` (a latest version) or an older latest again, for this
    /// client's source and platform. MANDATORY is never affected.
    package func skipVersion(_ version: String) throws(GateFailure) {
        let (options, sourceName) = settings
        guard let sourceName else { throw .invalidArgument("no usable source is set: nothing to skip a version of") }
        guard let trimmed = withVersion(version, { $0?.trimmedText }) else {
            throw .invalidVersion("cannot skip \(OneLine.quoted(version, max: 64)): not a valid version")
        }
        guard let state = PromptState(source: sourceName, platform: options.platform, environment: system.environment,
                                      files: system.files) else {
            throw .config("cannot remember a skipped version: neither XDG_STATE_HOME nor HOME is an absolute path")
        }
        guard state.skip(trimmed) else {
            throw .config("cannot write the skipped version under \(system.environment.stateHome ?? "")/versiongate")
        }
    }
}
