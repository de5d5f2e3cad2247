import VersionGateCore
import VersionGatePlatform

/// Who this installation is, for staged rollouts (`Rollout`): the Firebase
/// installation id when the source has one, else a random id kept in
/// `$XDG_STATE_HOME/versiongate/installation-id` (0600), made on first use.
/// nil when neither can be had (no usable state directory).
package enum InstallationID {
    package static let fileName = "installation-id"

    package static func resolve(_ source: any ConfigSource, state: PrivateDirectory?) -> String? {
        guard let state else { return nil }
        if let fid = source.installationID(state: state) { return fid }
        if let known = read(state) { return known }
        var random = SystemRandom()
        let id = (0..<4).map { _ in hex(random.next()) }.joined()
        state.write(fileName, Array((id + "\n").utf8), durable: true)
        // Read back: when two launchers raced, both go on with the winner's.
        return read(state)
    }

    private static func read(_ state: PrivateDirectory) -> String? {
        guard let bytes = state.read(fileName, maxBytes: 256) else { return nil }
        let id = ASCII.trimmingBlanks(String(decoding: bytes.filter { $0 != 0x0A }, as: UTF8.self))
        return id.count == 32 && id.utf8.allSatisfy({ ASCII.hexValue($0) != nil }) ? id : nil
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
