internal import CoreMetrics

extension Counter {
    /// Adds what a running total gained since it was `before`; nothing when it did not grow. The daemon and the
    /// journal count in plain integers as they work, and the metrics turn those totals into increments.
    func increment(total now: Int, before: Int) {
        if now > before { increment(by: now - before) }
    }
}
