import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The zsync side of an AppImage's update: where the control file is,
/// the control file itself, and the new file assembled from the running
/// file's blocks and the fetched ranges.
extension AppImageUpdate {
    /// The running file's `.upd_info`; none is a refusal (the store updates it).
    static func updateInformation(_ path: String, seedLength: UInt64,
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
    static func controlFileURL(_ information: AppImageUpdateInformation, gitHubAPI: String,
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
    static func fetchControl(_ controlURL: String, transport: any HTTPTransport,
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
    static func assemble(into output: Int32, _ control: ZsyncControl, plan: ZsyncPlan,
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
}
