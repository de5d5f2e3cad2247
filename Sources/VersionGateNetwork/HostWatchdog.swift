#if canImport(Glibc)
import Glibc
#endif

/// Ends a watching helper when its host stops listening (docs/design.md,
/// "Watching a source"): the host closed its end of the pipe (poll sees
/// POLLERR on ours), or exited. A thread of its own, since the watch may
/// block in a stream for an hour; the exit releases the source's lock.
enum HostWatchdog {
    static func start(output: Int32, hostPID: Int32) {
        let context = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        (context[0], context[1]) = (output, hostPID)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let pair = raw.assumingMemoryBound(to: Int32.self)
            let (output, host) = (pair[0], pair[1])
            while true {
                var ready = pollfd(fd: output, events: 0, revents: 0)
                _ = poll(&ready, 1, 1000)
                if ready.revents != 0 || (kill(host, 0) != 0 && errno == ESRCH) { _exit(0) }
            }
        }, context)
        if started == 0 { pthread_detach(thread) } else { context.deallocate() }
    }
}
