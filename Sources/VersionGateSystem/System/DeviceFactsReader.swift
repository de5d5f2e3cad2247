import VersionGateCore
import VersionGateWire
#if canImport(Glibc)
import Glibc
#endif

extension DeviceFacts {
    /// Time zone from $TZ (an Olson name, optionally after ':') or the
    /// /etc/localtime link; kernel release from uname; country from the
    /// locale's region ("de_DE.UTF-8" → "DE").
    package static func read(_ environment: CheckEnvironment) -> DeviceFacts {
        DeviceFacts(timeZone: timeZone(environment.value("TZ")), platformVersion: kernelRelease(),
                    countryCode: BCP47.region(of: environment.localeName))
    }

    private static func timeZone(_ tz: String?) -> String? {
        if let tz, !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return isOlsonName(name) ? name : nil
        }
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let components = target.split(separator: "/")
        guard let zoneinfo = components.lastIndex(of: "zoneinfo") else { return nil }
        let name = components[(zoneinfo + 1)...].joined(separator: "/")
        return isOlsonName(name) ? name : nil
    }

    private static func isOlsonName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+")
        }
    }

    private static func kernelRelease() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        // "6.8.0-45-generic" → "6.8.0": what the SDKs send as platformVersion.
        let version = withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }, as: UTF8.self)
        }
        return version.isEmpty ? nil : version
    }
}
