import VersionGateCore
/// A stable, short file name part for a key of any length (cache, state and
/// marker files are named by it): FNV-1a 64, 16 lower-case hex digits.
package func fnv1a64Hex(_ text: String) -> String {
    let hex = String(FNV1a64.hash(text), radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
