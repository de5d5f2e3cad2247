import VersionGateCore
import VersionGateWire
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The helper's watch mode (docs/design.md, "Watching a source"): it sends
/// the host a `changed` record whenever the decision may have changed, and
/// ends when the host closes its end, or is gone. A local document is
/// watched by inotify on its directory (an atomic rename counts); a remote
/// config by the watcher that holds its lock (one per machine user and
/// source): a document URL with conditional requests every interval, a
/// Firebase template through Remote Config's realtime stream. Another
/// watcher of the same source watches the cache file the holder writes,
/// and takes the lock over when the holder ends.
package enum WatchService {
    package static func run(_ watch: HelperRequest.Watch, output: Int32) -> HelperAnswer {
        // A stream blocks this thread for long: the host's going is watched on another.
        HostWatchdog.start(output: output, hostPID: watch.hostPID)
        guard let changes = DirectoryChanges() else {
            return .failed(GateFailure(.internalError, "watch: inotify is not available: \(String(cString: strerror(errno)))"))
        }
        var holder: (lock: FileLock, source: any SourceWatch)?
        // A source whose watching ended for the run (realtime disabled): the
        // lock stays held, so no other watcher asks again; the cache is still watched.
        var ended = false
        var nextLockTry: Int64 = 0
        if let file = watch.file {
            guard changes.watch(file) else {
                return .failed(GateFailure(.config, "watch: \(file)'s directory cannot be watched"))
            }
        } else if let fetch = watch.fetch, let cacheHome = fetch.cacheHome {
            // The cache file the holder (this watcher or another) writes.
            _ = changes.watch(cacheHome + "/versiongate/" + CachedConfig.fileName(forKey: fetch.remote.cacheKey))
        }
        // Watching from here on: a change since the host's last check is told once.
        guard HelperService.send(HelperAnswer.Interim.changed.record.encoded(), to: output) else {
            return .failed(GateFailure(.internalError, "watch: the host stopped listening"))
        }
        while true {
            let now = Deadline.nowNanoseconds()
            if holder == nil, let fetch = watch.fetch, let lockPath = watch.lockPath, now >= nextLockTry {
                nextLockTry = now + 1_000_000_000
                if case .acquired(let lock) = POSIXFiles().lock(lockPath, until: Deadline(afterMilliseconds: 0)) {
                    holder = (lock, sourceWatch(fetch, watch) { HelperService.send(HelperAnswer.Interim.changed.record.encoded(),
                                                                                    to: output) })
                }
            }
            let wait = ended ? 1000 : min(1000, holder?.source.millisecondsToNextStep() ?? 1000)
            var ready = [pollfd(fd: output, events: 0, revents: 0), pollfd(fd: changes.descriptor, events: Int16(POLLIN), revents: 0)]
            let woke = poll(&ready, 2, Int32(clamping: max(wait, 0)))
            if woke < 0 && errno != EINTR { return .failed(GateFailure(.internalError, "watch: poll failed")) }
            // The host closed its end (POLLERR on a pipe with no reader), or is gone.
            if ready[0].revents != 0 || (kill(watch.hostPID, 0) != 0 && errno == ESRCH) {
                return .failed(GateFailure(.internalError, "watch: the host stopped listening"))
            }
            // The holder tells its own writes itself: the cache file's events are the others'.
            var changed = ready[1].revents != 0 && changes.drain() && holder == nil
            if !ended, let source = holder?.source, source.millisecondsToNextStep() <= 0 {
                switch source.step() {
                case .changed: changed = true
                case .quiet: break
                case .ended: ended = true
                }
            }
            if changed && !HelperService.send(HelperAnswer.Interim.changed.record.encoded(), to: output) {
                return .failed(GateFailure(.internalError, "watch: the host stopped listening"))
            }
        }
    }

    /// What the lock's holder does for `fetch`'s source; `notify` tells the host at once.
    private static func sourceWatch(_ fetch: HelperRequest.ConfigFetch, _ watch: HelperRequest.Watch,
                                    notify: @escaping () -> Bool) -> any SourceWatch {
        switch fetch.remote {
        case .firebase(let firebase):
            RealtimeStream(fetch, firebase: firebase, endpoint: watch.realtimeEndpoint, notify: notify)
        case .document:
            DocumentWatch(fetch, intervalSeconds: watch.intervalSeconds)
        }
    }
}

/// One remote source, watched by the lock's holder.
protocol SourceWatch: AnyObject {
    /// When the next step is due; 0 or less: now.
    func millisecondsToNextStep() -> Int
    /// One step: a request, or a message read.
    func step() -> SourceWatchStep
}

enum SourceWatchStep {
    case changed, quiet, ended
}
