/// Facts about the device that a remote protocol may send (Firebase
/// conditions test them): the host reads them (DeviceFacts.read), the
/// helper's fetch sends them.
package struct DeviceFacts: Sendable, Equatable {
    package var timeZone: String?        // Olson name, e.g. "Europe/Berlin"
    package var platformVersion: String? // e.g. the kernel release "6.8.0"
    package var countryCode: String?     // from the locale, e.g. "DE"

    package init(timeZone: String? = nil, platformVersion: String? = nil, countryCode: String? = nil) {
        (self.timeZone, self.platformVersion, self.countryCode) = (timeZone, platformVersion, countryCode)
    }
}
