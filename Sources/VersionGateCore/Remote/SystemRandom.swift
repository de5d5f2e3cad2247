/// The system's generator, with a byte of storage. An empty struct passed
/// `inout` has no address of its own, and ThreadSanitizer's access
/// instrumentation reads whatever pointer stands in for it: the helper
/// built for scripts/proof crashed in Backoff.after that way. Use this
/// wherever a generator is passed `inout`.
package struct SystemRandom: RandomNumberGenerator {
    private var system = SystemRandomNumberGenerator()
    private var storage: UInt8 = 0

    package init() {}

    package mutating func next() -> UInt64 { system.next() }
}
