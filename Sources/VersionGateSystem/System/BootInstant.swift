import VersionGateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A moment on this boot's clock (CLOCK_BOOTTIME, which counts suspend and
/// which nobody sets), named by the kernel's boot id so two boots are never
/// compared.
package struct BootInstant: Sendable, Equatable {
    package var bootID: String
    package var seconds: Int64

    package init(bootID: String, seconds: Int64) {
        self.bootID = bootID
        self.seconds = seconds
    }

    /// nil when the kernel does not say which boot this is.
    @Sendable package static func now() -> BootInstant? {
        guard let id = bootID.withLock({ $0 }) ?? read() else { return nil }
        var time = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return nil }
        return BootInstant(bootID: id, seconds: Int64(time.tv_sec))
    }

    /// Read once per process (where the kernel has none, every check asks again).
    private static let bootID = Mutex<String?>(nil)

    private static func read() -> String? {
        guard let bytes = try? POSIXFiles().read("/proc/sys/kernel/random/boot_id", maxBytes: 64, trust: .document).bytes
        else { return nil }
        let id = ASCII.trimmingBlanks(String(decoding: bytes.filter { $0 != 0x0A }, as: UTF8.self))
        guard (1...64).contains(id.utf8.count) else { return nil }
        bootID.withLock { $0 = id }
        return id
    }
}
