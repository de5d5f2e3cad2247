/// A client's settings, set by string key so any FFI can set them and new
/// keys never change the ABI. Each setter validates its value; a bad value
/// leaves the option unchanged.
struct ClientOptions: Sendable, Equatable {
    enum SessionScope: String, Sendable { case login, process }

    /// Path of the local gate document; nil until set.
    var sourcePath: String?
    var platform = "linux"
    /// nil = from the environment at check time.
    var locale: String?
    var sessionScope = SessionScope.login

    static let maxValueBytes = 4096

    /// Sets `key` to `value`; a nil value restores the default.
    mutating func set(_ key: String, _ value: String?) throws(GateFailure) {
        if let value, value.utf8.count > Self.maxValueBytes {
            throw .invalidArgument("value for \"\(key)\" is longer than \(Self.maxValueBytes) bytes")
        }
        switch key {
        case "source":
            sourcePath = try value.map { v throws(GateFailure) in try SourceLocation.path(from: v) }
        case "platform":
            guard let value else { platform = "linux"; return }
            guard (1...32).contains(value.utf8.count),
                  value.utf8.allSatisfy({ isLowerAlnum($0) || $0 == UInt8(ascii: "_") }) else {
                throw .invalidArgument("platform \"\(value)\" must be 1-32 characters of a-z, 0-9 and _")
            }
            platform = value
        case "locale":
            guard let value else { locale = nil; return }
            guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy(isLocaleByte) else {
                throw .invalidArgument("locale \"\(value)\" must be 1-64 characters of A-Z, a-z, 0-9, _ . @ -")
            }
            locale = value
        case "session_scope":
            guard let value else { sessionScope = .login; return }
            guard let scope = SessionScope(rawValue: value) else {
                throw .invalidArgument("session_scope \"\(value)\" must be \"login\" or \"process\"")
            }
            sessionScope = scope
        default:
            throw .invalidArgument("unknown option \"\(key)\"")
        }
    }
}

private func isLowerAlnum(_ b: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
}

private func isLocaleByte(_ b: UInt8) -> Bool {
    isLowerAlnum(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
        || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "@") || b == UInt8(ascii: "-")
}
