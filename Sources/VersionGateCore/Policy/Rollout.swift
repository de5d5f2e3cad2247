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
        var hasher = FNV1a64()
        hasher.add(installationID.utf8)
        hasher.add(CollectionOfOne(0x0A))
        hasher.add(latest.utf8)
        return Int(hasher.value % 100)
    }
}
