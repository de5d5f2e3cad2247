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

    /// The running file's `.upd_info`; none is a refusal (the store updates it).
    private static func updateInformation(_ path: String, seedLength: UInt64,
                                          readSeed: (UInt64, Int) -> [UInt8]?) -> Result<AppImageUpdateInformation, Refusal> {
        do throws(AppImageUpdateInformationError) {
            guard let found = try AppImageUpdateInformation.read(fileSize: seedLength, readSeed) else {
                return .failure(Refusal(.unavailable, "\(path) has no update information (.upd_info): update from the store"))
            }
            return .success(found)
        } catch {
            return .failure(Refusal(.unavailable, "\(path): \(error.message)"))
        }
    }

    /// Where the .zsync control file is: named outright, or the asset of a
    /// GitHub release that matches the update information's glob.
    private static func controlFileURL(_ information: AppImageUpdateInformation, gitHubAPI: String,
                                       transport: any HTTPTransport, limits: TransportLimits) -> Result<String, Refusal> {
        switch information {
        case .zsync(let url): return .success(url)
        case .gitHubReleases(let user, let repository, let tag, let glob):
            let releaseURL = GitHubReleaseAsset.releaseURL(endpoint: gitHubAPI, user: user, repository: repository, tag: tag)
            let release: HTTPResponse
            do throws(TransportError) {
                release = try transport.send(HTTPRequest(url: releaseURL, headers: [("Accept", "application/vnd.github+json")]),
                                             limits: limits)
            } catch {
                return .failure(Refusal(.failed, error.message))
            }
            guard release.status == 200 else { return .failure(Refusal(.failed, "\(releaseURL): HTTP \(release.status)")) }
            return GitHubReleaseAsset.downloadURL(release: release.body, glob: glob)
                .mapError { Refusal(.failed, "\(releaseURL): \($0.message)") }
        }
    }

    /// The control file, fetched within its own size limit and parsed.
    private static func fetchControl(_ controlURL: String, transport: any HTTPTransport,
                                     limits: TransportLimits) -> Result<ZsyncControl, Refusal> {
        var controlLimits = limits
        controlLimits.maxBodyBytes = ZsyncControl.maxBytes
        do {
            let response = try transport.send(HTTPRequest(url: controlURL), limits: controlLimits)
            guard response.status == 200 else { return .failure(Refusal(.failed, "\(controlURL): HTTP \(response.status)")) }
            return .success(try ZsyncControl(parsing: response.body))
        } catch let error as TransportError {
            return .failure(Refusal(.failed, error.message))
        } catch let error as ZsyncControlError {
            return .failure(Refusal(.failed, "\(controlURL): \(error.message)"))
        } catch {
            return .failure(Refusal(.failed, "\(controlURL): \(error)"))
        }
    }

    /// The new file written to `output` from the running file's blocks and
    /// the fetched ranges, with a progress record at each new percent; a
    /// refusal says why it stopped (the caller closes `output` then).
    private static func assemble(into output: Int32, _ control: ZsyncControl, plan: ZsyncPlan,
                                 readSeed: (UInt64, Int) -> [UInt8]?, fetcher: inout RangeFetcher, fileURL: String,
                                 path: String, send: (HelperAnswer.Interim) -> Bool) -> Result<Void, Refusal> {
        var written: UInt64 = 0
        var percent = -1
        var cancelled = false
        do throws(ZsyncUpdateError) {
            try ZsyncAssembler.assemble(control, plan: plan, readSeed: readSeed, fetched: { fetcher.bytes($0) }, write: { bytes in
                guard writeAll(output, bytes) else { return false }
                written += UInt64(bytes.count)
                let now = control.length == 0 ? 100 : Int(written * 100 / control.length)
                if now != percent {
                    percent = now
                    if !send(.progress(UpdateProgress(op: 0, count: 1, percent: now))) {
                        cancelled = true
                        return false
                    }
                }
                return true
            })
            return .success(())
        } catch {
            if cancelled { return .failure(Refusal(.cancelled, "cancelled by the host; \(path) is unchanged")) }
            if let failure = fetcher.failure { return .failure(Refusal(.failed, "\(failure); \(path) is unchanged")) }
            switch error {
            case .fetchedBlockCorrupt, .sha1Mismatch, .fetchedRangeWrongSize:
                return .failure(Refusal(.verifyFailed, "\(error.message) (\(fileURL)); \(path) is unchanged"))
            default:
                return .failure(Refusal(.failed, "\(error.message); \(path) is unchanged"))
            }
        }
    }

    /// With trusted_keys, the new file must carry a minisign signature by one
    /// of them (`<file URL>.minisig`), as documents do. A prehashed signature
    /// (minisign's default) is checked against the file's BLAKE2b-512, read
    /// a piece at a time; only a legacy one needs the file whole.
    private static func verifySignature(_ file: String, length: UInt64, fileURL: String, trust: DocumentTrust,
                                        transport: any HTTPTransport, limits: TransportLimits) -> Result<Void, Refusal> {
        let signatureURL = SignatureCheck.signatureLocation(of: fileURL)
        var signatureLimits = limits
        signatureLimits.maxBodyBytes = 4096
        let signature: HTTPResponse
        do throws(TransportError) {
            signature = try transport.send(HTTPRequest(url: signatureURL), limits: signatureLimits)
        } catch {
            return .failure(Refusal(.verifyFailed, "signature missing: \(error.message)"))
        }
        guard signature.status == 200 else {
            return .failure(Refusal(.verifyFailed, "signature missing: \(signatureURL): HTTP \(signature.status)"))
        }
        let fd = vg_system_open(file, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return .failure(Refusal(.failed, "cannot read back \(file) to check its signature")) }
        defer { close(fd) }
        let verified = trust.verify(signatureFile: signature.body, document: fileURL, signatureName: signatureURL) {
            algorithm throws(GateFailure) in
            if algorithm == .prehashed { return try LibcryptoSignatureCrypto().blake2b512(of: fd, length: length) }
            guard length <= UInt64(Int.max), let bytes = readAt(fd, 0, Int(length)) else {
                throw GateFailure(.signature, "cannot read back \(file)")
            }
            return bytes
        }
        if case .failure(let failure) = verified { return .failure(Refusal(.verifyFailed, failure.message)) }
        return .success(())
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

    private static func readAt(_ fd: Int32, _ offset: UInt64, _ count: Int) -> [UInt8]? {
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

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && systemErrno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
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
