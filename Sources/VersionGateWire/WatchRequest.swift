import VersionGateCore

extension HelperRequest {
    /// Watch a source for as long as the host listens (docs/design.md,
    /// "Watching a source"): a local document's file, or a remote config
    /// (its fetch as a refresh would make it). The helper sends a `changed`
    /// record whenever the decision may have changed, and ends when the
    /// host closes its end or exits.
    package struct Watch: Sendable, Equatable {
        /// A local document: the file to watch (its directory's renames count).
        package var file: String?
        /// A remote config: the fetch the helper repeats, as a refresh.
        package var fetch: ConfigFetch?
        /// A document URL: seconds between conditional requests (jittered).
        package var intervalSeconds: Int
        /// Firebase's realtime origin (`firebase_realtime_endpoint`).
        package var realtimeEndpoint: String
        /// The host: the helper ends when it is gone.
        package var hostPID: Int32
        /// One watcher per machine user and source holds it; another
        /// watches the cache file the holder writes.
        package var lockPath: String?

        package init(file: String?, fetch: ConfigFetch?, intervalSeconds: Int, realtimeEndpoint: String, hostPID: Int32,
                     lockPath: String?) {
            (self.file, self.fetch, self.intervalSeconds, self.realtimeEndpoint) = (file, fetch, intervalSeconds, realtimeEndpoint)
            (self.hostPID, self.lockPath) = (hostPID, lockPath)
        }

        /// Its records after the mode.
        func add(to message: inout HelperMessage) {
            if let file { message.add("watch_file", file) }
            if let fetch {
                message.add("watch_fetch", fetch.mode.rawValue)
                fetch.add(to: &message)
            }
            message.add("interval_s", String(intervalSeconds))
            message.add("realtime", realtimeEndpoint)
            message.add("host_pid", String(hostPID))
            if let lockPath { message.add("watch_lock", lockPath) }
        }

        /// The watch as `add` wrote it; nil when malformed.
        init?(_ message: HelperMessage) {
            guard let interval = message.value("interval_s").flatMap(HelperMessage.integer), interval > 0,
                  let realtime = message.value("realtime"),
                  let host = message.value("host_pid").flatMap(HelperMessage.integer), host > 0 else { return nil }
            var fetch: ConfigFetch?
            if let mode = message.value("watch_fetch") {
                // The fetch's records, under its own mode.
                var inner = HelperMessage()
                inner.add("mode", mode)
                for record in message.records where record.name != "mode" { inner.add(record.name, record.value) }
                guard let made = ConfigFetch(inner) else { return nil }
                fetch = made
            }
            let file = message.value("watch_file")
            guard (file == nil) != (fetch == nil) else { return nil }
            self.init(file: file, fetch: fetch, intervalSeconds: interval, realtimeEndpoint: realtime,
                      hostPID: Int32(clamping: host), lockPath: message.value("watch_lock"))
        }
    }
}
