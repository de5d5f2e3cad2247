import Foundation

/// Open file descriptors and threads of this process, from /proc.
struct ProcessCounts: Equatable, CustomStringConvertible {
    let fds: Int
    let threads: Int

    /// The threads' names (/proc/self/task/*/comm), for a leak's message.
    let threadNames: [String]

    static func now() -> ProcessCounts {
        let fm = FileManager.default
        let tasks = (try? fm.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let names = tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
        return ProcessCounts(fds: (try? fm.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1,
                             threads: tasks.isEmpty ? -1 : tasks.count, threadNames: names.sorted())
    }

    /// Whether the counts come back to `before` within ten seconds (a closed
    /// socket or an exiting thread may take a moment to disappear, and a
    /// sanitized run under load once kept a thread past one second; a leak
    /// never comes back). Returns as soon as they do.
    static func settles(to before: ProcessCounts) -> Bool {
        for _ in 0..<1000 {
            let now = now()
            if now.fds <= before.fds && now.threads <= before.threads { return true }
            usleep(10_000)
        }
        return false
    }

    var description: String { "\(fds) fds, \(threads) threads (\(threadNames.joined(separator: ", ")))" }
}

/// Peak resident memory of this process (VmHWM), resettable on Linux.
enum PeakMemory {
    /// Resets the peak to the current RSS and returns that RSS in bytes.
    static func resetAndReadResident() -> Int? {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return field("VmRSS")
    }

    static func peak() -> Int? { field("VmHWM") }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kB = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return kB.map { $0 * 1024 }
        }
        return nil
    }
}

/// The throwaway PKI of Tests/Server/make_certs.py, made once per test run
/// and removed at exit.
final class TestPKI: @unchecked Sendable {
    let directory: URL
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: TestPKI?

    private init(directory: URL) { self.directory = directory }

    static func shared() throws -> TestPKI {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vg-pki-\(getpid())")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", LoopbackServer.repositoryRoot.appendingPathComponent("Tests/Server/make_certs.py").path, dir.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PKIFailed(status: process.terminationStatus) }
        let pki = TestPKI(directory: dir)
        made = pki
        // Removed when the test process exits, so runs leave no keys behind.
        atexit { if let dir = TestPKI.made?.directory { try? FileManager.default.removeItem(at: dir) } }
        return pki
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

struct PKIFailed: Error { let status: Int32 }
