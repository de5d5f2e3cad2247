import VersionGateCore
/// The last good config of one remote source, as kept under
/// `$XDG_CACHE_HOME/versiongate/`. Read defensively: a file that does not
/// parse, is for another source or holds impossible values is ignored (and
/// replaced by the next good fetch), never trusted.
package struct CachedConfig: Sendable, Equatable {
    package static let format = 1
    package static let maxFileBytes = 2 << 20

    package var key: String
    package var fetchedAt: Int64
    /// The boot clock at the fetch, when known.
    package var fetchedAtBoot: BootInstant? = nil
    package var etag: String?
    /// Server freshness (Cache-Control max-age), already capped.
    package var maxAgeSeconds: Int?
    /// Server stale-while-revalidate and stale-if-error (RFC 5861), capped.
    package var staleWhileRevalidateSeconds: Int? = nil
    package var staleIfErrorSeconds: Int? = nil
    /// No thresholds: the remote said EMPTY_CONFIG / NO_TEMPLATE.
    package var empty: Bool
    package var config: GateConfig
    /// Fetched because Remote Config's realtime stream told of a newer
    /// template (docs/design.md, "Watching a source"): checks deciding from
    /// it tell origin "realtime".
    package var realtime = false

    package init(key: String, fetchedAt: Int64, fetchedAtBoot: BootInstant? = nil, etag: String?, maxAgeSeconds: Int?,
                 staleWhileRevalidateSeconds: Int? = nil, staleIfErrorSeconds: Int? = nil, empty: Bool, config: GateConfig) {
        (self.key, self.fetchedAt, self.fetchedAtBoot, self.etag) = (key, fetchedAt, fetchedAtBoot, etag)
        (self.maxAgeSeconds, self.staleWhileRevalidateSeconds, self.staleIfErrorSeconds) =
            (maxAgeSeconds, staleWhileRevalidateSeconds, staleIfErrorSeconds)
        (self.empty, self.config) = (empty, config)
    }

    package static func fileName(forKey key: String) -> String { "config-\(fnv1a64Hex(key)).json" }
    /// The login burst's lock, beside the entry: its holder fetches.
    package static func lockName(forKey key: String) -> String { "lock-\(fnv1a64Hex(key))" }
    /// In the state directory: the server's backoff, and the last fetch's failure for its burst's waiters.
    package static func backoffName(forKey key: String) -> String { "backoff-\(fnv1a64Hex(key)).json" }
    package static func failureName(forKey key: String) -> String { "failed-\(fnv1a64Hex(key)).json" }

    package func encoded() -> [UInt8] {
        var object: [String: JSONValue] = [
            "format": .number(Double(Self.format)),
            "key": .string(key),
            "fetched_at": .string(String(fetchedAt)),
            "empty": .bool(empty),
            "values": .object(config.values.mapValues { .string($0) }),
            "non_string_keys": .array(config.nonStringKeys.sorted().map { .string($0) }),
        ]
        if let etag { object["etag"] = .string(etag) }
        if let maxAgeSeconds { object["max_age_s"] = .string(String(maxAgeSeconds)) }
        if let staleWhileRevalidateSeconds { object["swr_s"] = .string(String(staleWhileRevalidateSeconds)) }
        if let staleIfErrorSeconds { object["sie_s"] = .string(String(staleIfErrorSeconds)) }
        if let version = config.templateVersion { object["template_version"] = .string(String(version)) }
        if let signature = config.signature {
            object["signed_by"] = .string(MinisignPublicKey.keyIDText(signature.keyID))
            if let timestamp = signature.timestamp { object["signed_at"] = .string(String(timestamp)) }
        }
        if realtime { object["realtime"] = .bool(true) }
        if let boot = fetchedAtBoot {
            object["boot_id"] = .string(boot.bootID)
            object["boot_s"] = .string(String(boot.seconds))
        }
        return JSONValue.object(object).encoded()
    }

    /// nil for anything but a well-formed entry for `key`.
    package static func decode(_ bytes: [UInt8], key: String) -> CachedConfig? {
        guard let value = try? JSONValue.decode(bytes),
              case .number(Double(format)) = value["format"],
              case .string(key) = value["key"],
              case .string(let fetched) = value["fetched_at"], let fetchedAt = Int64(decimal: fetched),
              case .bool(let empty) = value["empty"],
              case .object(let rawValues) = value["values"],
              case .array(let rawKeys) = value["non_string_keys"] else { return nil }
        var config = GateConfig()
        for (name, raw) in rawValues {
            guard case .string(let text) = raw else { return nil }
            config.values[name] = text
        }
        for raw in rawKeys {
            guard case .string(let name) = raw else { return nil }
            config.nonStringKeys.insert(name)
        }
        switch value["template_version"] {
        case nil: break
        case .string(let text)?:
            guard let version = Int64(decimal: text) else { return nil }
            config.templateVersion = version
        default: return nil
        }
        var etag: String?
        switch value["etag"] {
        case nil: break
        case .string(let text)?: etag = text
        default: return nil
        }
        /// A lifetime field: absent, or seconds up to the 24 h cap; false = malformed.
        func seconds(_ field: String, _ into: inout Int?) -> Bool {
            switch value[field] {
            case nil: return true
            case .string(let text)?:
                guard let seconds = Int64(decimal: text), (0...86_400).contains(seconds) else { return false }
                into = Int(seconds)
                return true
            default: return false
            }
        }
        var maxAge: Int?, staleWhileRevalidate: Int?, staleIfError: Int?
        guard seconds("max_age_s", &maxAge), seconds("swr_s", &staleWhileRevalidate),
              seconds("sie_s", &staleIfError) else { return nil }
        switch (value["signed_by"], value["signed_at"]) {
        case (nil, nil): break
        case (.string(let keyID)?, let at):
            guard let id = keyIDBytes(keyID) else { return nil }
            var timestamp: Int64?
            if case .string(let text)? = at { timestamp = Int64(decimal: text) }
            guard (at == nil) == (timestamp == nil) else { return nil }
            config.signature = DocumentSignature(keyID: id, timestamp: timestamp)
        default: return nil
        }
        var boot: BootInstant?
        if case .string(let id)? = value["boot_id"], case .string(let seconds)? = value["boot_s"],
           let bootSeconds = Int64(decimal: seconds) {
            boot = BootInstant(bootID: id, seconds: bootSeconds)
        }
        var entry = CachedConfig(key: key, fetchedAt: fetchedAt, fetchedAtBoot: boot, etag: etag, maxAgeSeconds: maxAge,
                                 staleWhileRevalidateSeconds: staleWhileRevalidate, staleIfErrorSeconds: staleIfError,
                                 empty: empty, config: config)
        switch value["realtime"] {
        case nil: break
        case .bool(let realtime)?: entry.realtime = realtime
        default: return nil
        }
        return entry
    }

    /// The 8 key id bytes from `MinisignPublicKey.keyIDText`'s spelling.
    private static func keyIDBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 16 else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: 16, by: 2) {
            guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        let id = Array(bytes.reversed())
        return MinisignPublicKey.keyIDText(id) == text ? id : nil   // one spelling only
    }
}
