import VersionGateCore
import VersionGatePlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reading the boot clock (CLOCK_BOOTTIME) and the kernel's boot id.
extension BootInstant {
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
