/// `parts.joined(separator:)`, concatenated here. The standard library's
/// joined is generic over StringProtocol and is not specialized for us: its
/// first call in a process asks the runtime whether String conforms, which
/// scans every conformance record (65,000 instructions, 7 % of a cold check,
/// BENCHMARKS.md).
package func join(_ parts: [String], separator: String) -> String {
    var joined = ""
    for (index, part) in parts.enumerated() {
        if index > 0 { joined += separator }
        joined += part
    }
    return joined
}

/// The notes that are there, joined by "; "; nil when neither is (no
/// array: a warm check calls it with two nils).
package func joinNotes(_ first: String?, _ second: String?) -> String? {
    guard let first else { return second }
    guard let second else { return first }
    return first + "; " + second
}
