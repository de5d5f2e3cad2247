/// Staged OPTIONAL prompts (`latest_version_<platform>_rollout_percent`).
/// An installation's bucket, 0-99, is
///
///     FNV-1a-64(installation id + "\n" + latest version as written, trimmed) mod 100
///
/// and the prompt is shown when the bucket is below the percent: so raising
/// the percent only adds installations, and each new latest version draws
/// a new sample.
package enum Rollout {
    package static func bucket(installationID: String, latest: String) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in installationID.utf8 + [0x0A] + latest.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int(hash % 100)
    }
}
