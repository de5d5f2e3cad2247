/// What the user said about OPTIONAL prompts, as rules over values (docs/design.md, "Sessions, skip and remind");
/// PromptState reads and writes them, and asks only what it needs.
package enum PromptRules {
    /// "Skip this version": silences that latest version and older ones,
    /// not a newer one (nor one that does not compare).
    package static func isSkipped(latest: String, skipped: String) -> Bool {
        Version.compare(latest, skipped).map { $0 <= 0 } == true
    }

    /// `remind_after_s`: seconds since the last prompt while still within
    /// it, else nil. A prompt time in the future (a clock moved back, a bad
    /// file) is never within it.
    package static func sinceLastPrompt(_ last: Int64, now: Int64, remindAfter: Int64) -> Int64? {
        guard last <= now else { return nil }
        let (since, overflow) = now.subtractingReportingOverflow(last)
        return !overflow && since < remindAfter ? since : nil
    }
}
