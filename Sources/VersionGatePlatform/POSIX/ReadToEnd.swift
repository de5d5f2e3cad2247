import Glibc

/// Everything `fd` gives until its end, for pipes and for the kernel's and
/// bubblewrap's files (whose sizes read as 0); nil on a read error or past
/// `maxBytes`.
package func readToEnd(_ fd: Int32, maxBytes: Int) -> [UInt8]? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && systemErrno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
        guard bytes.count <= maxBytes else { return nil }
    }
}
