/// FNV-1a, 64 bit: the one stable hash of the library. Rollout buckets and
/// file names depend on its exact values (operators recompute buckets,
/// existing caches are found by name), so it must never change.
package struct FNV1a64 {
    package private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    package init() {}

    package mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }

    package static func hash(_ text: String) -> UInt64 {
        var hasher = FNV1a64()
        hasher.add(text.utf8)
        return hasher.value
    }
}
