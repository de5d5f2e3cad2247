/// A moment on this boot's clock (CLOCK_BOOTTIME, which counts suspend and
/// which nobody sets), named by the kernel's boot id so two boots are never
/// compared. The system layer reads it (`BootInstant.now`).
package struct BootInstant: Sendable, Equatable {
    package var bootID: String
    package var seconds: Int64

    package init(bootID: String, seconds: Int64) {
        self.bootID = bootID
        self.seconds = seconds
    }
}
