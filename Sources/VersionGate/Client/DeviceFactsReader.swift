#if canImport(Glibc)
import Glibc
#endif

extension DeviceFacts {
    /// Time zone from $TZ (an Olson name, optionally after ':') or the
    /// /etc/localtime link; kernel release from uname; country from the
    /// locale's region ("de_DE.UTF-8" → "DE").
    static func read(_ environment: CheckEnvironment) -> DeviceFacts {
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

/// POSIX locale names in BCP 47 form, for protocols that want one.
enum BCP47 {
    /// "pt_BR.UTF-8@euro" → "pt-BR"; "C"/"POSIX"/unusable → "en".
    static func tag(of locale: String?) -> String {
        guard let locale, let language = parts(locale)?.language else { return "en" }
        return region(of: locale).map { "\(language)-\($0)" } ?? language
    }

    static func region(of locale: String?) -> String? {
        guard let locale else { return nil }
        return parts(locale)?.region
    }

    private static func parts(_ locale: String) -> (language: String, region: String?)? {
        let base = locale.prefix { $0 != "." && $0 != "@" }
        let pieces = base.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = pieces.first, (2...3).contains(first.count),
              first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        let language = first.lowercased()
        guard pieces.count > 1, pieces[1].count == 2, pieces[1].allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return (language, nil)
        }
        return (language, pieces[1].uppercased())
    }
}
