/// A version's text kept by value: up to 32 bytes inline, so a warm check
/// makes no String for the version it was asked about (making one costs
/// more than the whole comparison); longer texts are kept as a String.
/// The String is made when somebody asks (the result's fields, the reason,
/// the session key).
package struct VersionText: Sendable, Equatable {
    private static let inlineCapacity = 32
    private var inline: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private let inlineCount: Int
    private let long: String?

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= VersionText.inlineCapacity else {
            (inlineCount, long) = (0, String(decoding: bytes, as: UTF8.self))
            return
        }
        (inlineCount, long) = (bytes.count, nil)
        withUnsafeMutableBytes(of: &inline) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
    }

    package init(_ text: String) {
        (inlineCount, long) = (0, text)
    }

    package var string: String {
        if let long { return long }
        return withUnsafeBytes(of: inline) { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                String(decoding: UnsafeBufferPointer(rebasing: bytes.prefix(inlineCount)), as: UTF8.self)
            }
        }
    }

    /// The same text: inline bytes compared as four words, no String made.
    package static func == (a: VersionText, b: VersionText) -> Bool {
        if a.long == nil && b.long == nil { return a.inlineCount == b.inlineCount && a.inline == b.inline }
        return a.string == b.string
    }
}
