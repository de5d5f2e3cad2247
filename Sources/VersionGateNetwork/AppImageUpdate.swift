import VersionGateCore
import VersionGateWire
import VersionGatePlatform
import SystemShim
#if canImport(Glibc)
import Glibc
#endif

/// Updating an AppImage in place, the helper's side (docs/design.md,
/// "Updating an AppImage by zsync"): the running file's update information
/// names a .zsync control file; the blocks the running file already has are
/// copied from it, the rest fetched with Range requests, the whole checked
/// against the control file's SHA-1, written beside it and renamed over it.
/// On any failure the old file stays and nothing is left beside it.
/// This file replaces the file; the zsync download is
/// AppImageZsyncDownload.swift's, the signature check AppImageSignatureCheck.swift's.
package enum AppImageUpdate {
    package struct Refusal: Error {
        let outcome: UpdateOutcome
        let message: String
        init(_ outcome: UpdateOutcome, _ message: String) { (self.outcome, self.message) = (outcome, message) }
    }

    /// `send` passes a progress record to the host; false when the host
    /// stopped listening (it cancelled): the update stops there.
    package static func update(path: String, update: HelperRequest.Update,
                               send: (HelperAnswer.Interim) -> Bool) -> HelperAnswer {
        var trust: DocumentTrust?
        if let text = update.trustedKeys {
            guard let keys = MinisignPublicKey.parseList(text) else {
                return .updated(.failed, message: "trusted_keys is not a list of minisign public keys")
            }
            trust = DocumentTrust(keys: keys)
        }
        switch run(path: path, limits: update.limits, gitHubAPI: update.gitHubAPI, trust: trust, send: send) {
        case .success(let message): return .updated(.installed, message: message)
        case .failure(let refusal): return .updated(refusal.outcome, message: refusal.message)
        }
    }

    private static func run(path: String, limits: TransportLimits, gitHubAPI: String, trust: DocumentTrust?,
                            send: (HelperAnswer.Interim) -> Bool) -> Result<String, Refusal> {
        let seed = vg_system_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard seed >= 0 else { return .failure(Refusal(.unavailable, "cannot open the AppImage \(path): \(errnoText())")) }
        defer { close(seed) }
        var status = stat()
        guard fstat(seed, &status) == 0, vg_system_is_regular(status.st_mode) != 0, status.st_size >= 0 else {
            return .failure(Refusal(.unavailable, "the AppImage \(path) is not a regular file"))
        }
        let seedLength = UInt64(status.st_size)
        let readSeed = { (offset: UInt64, count: Int) in readAt(seed, offset, count) }

        let information: AppImageUpdateInformation
        switch updateInformation(path, seedLength: seedLength, readSeed: readSeed) {
        case .success(let found): information = found
        case .failure(let refusal): return .failure(refusal)
        }
        let directory = parent(of: path)
        guard access(directory, W_OK) == 0 else {
            return .failure(Refusal(.unavailable, "cannot write \(directory) (\(errnoText())): update from the store"))
        }

        let transport = CurlTransport()
        let controlURL: String
        switch controlFileURL(information, gitHubAPI: gitHubAPI, transport: transport, limits: limits) {
        case .success(let url): controlURL = url
        case .failure(let refusal): return .failure(refusal)
        }
        let control: ZsyncControl
        switch fetchControl(controlURL, transport: transport, limits: limits) {
        case .success(let parsed): control = parsed
        case .failure(let refusal): return .failure(refusal)
        }
        guard let relative = control.urls.first else {
            return .failure(Refusal(.failed, "\(controlURL) names no URL for the new file"))
        }
        let fileURL = RelativeURL.resolve(relative, against: controlURL)

        let plan: ZsyncPlan
        do throws(ZsyncUpdateError) {
            plan = try ZsyncMatcher.plan(control, seedLength: seedLength, read: readSeed)
        } catch {
            return .failure(Refusal(.failed, error.message))
        }

        let debris = "." + name(of: path) + ".update-"
        removeDebris(in: directory, prefix: debris)
        let temporary = directory + "/" + debris + String(getpid())
        let output = vg_system_open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else {
            return .failure(Refusal(.unavailable, "cannot create \(temporary) (\(errnoText())): update from the store"))
        }
        var keep = false
        defer {
            if !keep { unlink(temporary) }
        }
        var fetcher = RangeFetcher(url: fileURL, ranges: plan.fetchRanges, length: control.length, limits: limits,
                                   transport: transport)
        if case .failure(let refusal) = assemble(into: output, control, plan: plan, readSeed: readSeed, fetcher: &fetcher,
                                                 fileURL: fileURL, path: path, send: send) {
            close(output)
            return .failure(refusal)
        }
        guard fchmod(output, status.st_mode & 0o7777) == 0, fsync(output) == 0, close(output) == 0 else {
            return .failure(Refusal(.failed, "cannot finish \(temporary): \(errnoText()); \(path) is unchanged"))
        }
        if let trust, case .failure(let refusal) = verifySignature(temporary, length: control.length, fileURL: fileURL,
                                                                    trust: trust, transport: transport, limits: limits) {
            return .failure(Refusal(refusal.outcome, refusal.message + "; \(path) is unchanged"))
        }
        guard rename(temporary, path) == 0 else {
            return .failure(Refusal(.failed, "cannot replace \(path): \(errnoText())"))
        }
        keep = true
        return .success("\(path) updated: \(fetcher.fetchedBytes) of \(control.length) bytes fetched, the rest from the running file")
    }

    /// What an update killed before it could clean up left (its pid no
    /// longer runs): removed before the next one starts.
    private static func removeDebris(in directory: String, prefix: String) {
        for name in POSIXFiles().names(in: directory) {
            guard name.hasPrefix(prefix), let pid = Int64(decimal: String(name.dropFirst(prefix.count))).flatMap(Int32.init(exactly:)),
                  pid > 0, kill(pid, 0) != 0, systemErrno == ESRCH else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// `count` bytes at `offset` of `fd` (the running file, or the new one read back); nil when it ends first.
    static func readAt(_ fd: Int32, _ offset: UInt64, _ count: Int) -> [UInt8]? {
        guard count >= 0, offset <= UInt64(Int64.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress.map { $0 + filled }, count - filled, off_t(offset) + off_t(filled))
            }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { return nil }
            filled += n
        }
        return bytes
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    private static func errnoText() -> String { String(cString: strerror(systemErrno)) }
}
