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

/// The notes that are there, joined by "; "; nil when none is.
package func joinNotes(_ notes: [String?]) -> String? {
    let present = notes.compactMap { $0 }
    return present.isEmpty ? nil : join(present, separator: "; ")
}
