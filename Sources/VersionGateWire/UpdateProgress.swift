/// One step of an update in place, as the helper reports it while it runs.
package struct UpdateProgress: Sendable, Equatable {
    /// Operation `op` (from 0) of `count`, `percent` of it done.
    package let op: Int, count: Int, percent: Int

    package init(op: Int, count: Int, percent: Int) { (self.op, self.count, self.percent) = (op, count, percent) }
}
