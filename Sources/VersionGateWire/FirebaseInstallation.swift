import VersionGateCore
/// A Firebase installation as persisted: the FID that Remote Config counts
/// instances by, and the Installations (FIS) tokens that let percent
/// conditions match. One file per project and app in the state directory,
/// so the FID survives restarts: a new one per run would inflate the
/// project's instance statistics (Tests/Fixtures/PROTOCOLS.md §1.4).
package struct FirebaseInstallation: Sendable, Equatable {
    package var fid: String
    /// Set once the Installations service has registered `fid`.
    package var refreshToken: String?
    package var authToken: String?
    /// Unix seconds.
    package var authTokenExpiry: Int64?

    package init(fid: String, refreshToken: String? = nil, authToken: String? = nil, authTokenExpiry: Int64? = nil) {
        (self.fid, self.refreshToken, self.authToken, self.authTokenExpiry) = (fid, refreshToken, authToken, authTokenExpiry)
    }

    package static let maxFileBytes = 16 << 10

    package static func fileName(projectID: String, appID: String) -> String {
        "firebase-installation-\(fnv1a64Hex(projectID + "\n" + appID)).json"
    }

    /// A new FID as firebase-js-sdk makes one (generate-fid.ts): 17 random
    /// bytes, the first one's top 4 bits 0111, base64url, the first 22
    /// characters. So it always matches ^[cdef][A-Za-z0-9_-]{21}$.
    package static func newFID() -> String {
        var generator = SystemRandom()
        var bytes = (0..<17).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[0] = 0b0111_0000 | (bytes[0] & 0b0000_1111)
        return String(base64URL(bytes).prefix(22))
    }

    /// What we accept as a FID (ours, the server's, the file's): it goes into
    /// a URL path and a JSON body, so base64url characters only.
    package static func isValidFID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// What we accept as a token or key sent in a header: visible ASCII, so
    /// no server or file can inject a header line.
    package static func isHeaderToken(_ text: String) -> Bool {
        (1...8192).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The file's form; nil fields are left out.
    package func encoded() -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        if let authToken { json.member("authToken", authToken) }
        if let authTokenExpiry { json.member("authTokenExpiry", authTokenExpiry) }
        json.member("fid", fid)
        if let refreshToken { json.member("refreshToken", refreshToken) }
        json.endObject()
        return json.bytes
    }

    /// nil for anything but a well-formed record; the caller then replaces it.
    package static func decode(_ bytes: [UInt8]) -> FirebaseInstallation? {
        guard let value = try? JSONValue.decode(bytes), case .string(let fid)? = value["fid"], isValidFID(fid) else {
            return nil
        }
        func token(_ key: String) throws(Corrupt) -> String? {
            switch value[key] {
            case nil, .null?: return nil
            case .string(let text)? where isHeaderToken(text): return text
            default: throw Corrupt()
            }
        }
        do throws(Corrupt) {
            var installation = FirebaseInstallation(fid: fid, refreshToken: try token("refreshToken"),
                                                    authToken: try token("authToken"))
            switch value["authTokenExpiry"] {
            case nil, .null?: break
            case .number(let seconds)? where abs(seconds) <= 9_007_199_254_740_992:
                guard let whole = Int64(exactly: seconds) else { return nil }
                installation.authTokenExpiry = whole
            default: return nil
            }
            return installation
        } catch {
            return nil
        }
    }

    private struct Corrupt: Error {}

    /// RFC 4648 §5, no padding.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let group = bytes[start..<min(start + 3, bytes.count)]
            var bits: UInt32 = 0
            for (offset, byte) in group.enumerated() { bits |= UInt32(byte) << (16 - 8 * offset) }
            for index in 0...group.count { out.append(alphabet[Int((bits >> (18 - 6 * index)) & 63)]) }
            start += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
