import VersionGateCore
import VersionGatePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Files watched by name through inotify on their directories: a write, a
/// rename onto them (an atomic replace), a removal (docs/design.md,
/// "Watching a source").
final class DirectoryChanges {
    let descriptor: Int32
    /// Watch descriptor -> the names watched in that directory.
    private var names: [Int32: Set<String>] = [:]

    init?() {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Starts watching `path`'s directory for `path`; false when it cannot.
    func watch(_ path: String) -> Bool {
        guard let slash = path.lastIndex(of: "/") else { return false }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        let watched = inotify_add_watch(descriptor, directory, mask)
        guard watched >= 0 else { return false }
        names[watched, default: []].insert(name)
        return true
    }

    /// Reads every pending event; whether one was about a watched name.
    func drain() -> Bool {
        var hit = false
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return hit }
            hit = events(buffer.prefix(count)).contains { names[$0.watch]?.contains($0.name) == true } || hit
        }
    }

    /// The events in `bytes`: struct inotify_event, each followed by its
    /// NUL-padded name (read field by field, never past the end).
    private func events(_ bytes: ArraySlice<UInt8>) -> [(watch: Int32, name: String)] {
        var found: [(Int32, String)] = []
        var offset = bytes.startIndex
        func word(_ at: Int) -> UInt32? {
            guard at >= bytes.startIndex, at + 4 <= bytes.endIndex else { return nil }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        while let watch = word(offset), let length = word(offset + 12) {
            let nameStart = offset + 16
            guard let nameEnd = Int(exactly: length).map({ nameStart + $0 }), nameEnd <= bytes.endIndex else { break }
            let name = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            found.append((Int32(bitPattern: watch), String(decoding: name, as: UTF8.self)))
            offset = nameEnd
        }
        return found
    }
}
