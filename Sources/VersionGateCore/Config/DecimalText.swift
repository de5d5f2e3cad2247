/// Whole numbers written in configs, caches and headers.
extension Int64 {
    /// ASCII digits only (no sign, no spaces), at most Int64.max.
    package init?(decimal text: String) {
        guard !text.isEmpty, text.utf8.count <= 19 else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        self = value
    }
}
