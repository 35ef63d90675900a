/// When the `stepper-names` file (``StepperNamesFile``) is written again after the stepper processes changed: at once,
/// unless the last write was long, then once writing has taken at most a tenth of the time since it began, since the
/// file is written whole and a burst of joins made that quadratic (figures: docs/RELIABILITY.md). A process that joined
/// after the last write is not in the file if flowd dies before the next: a restart neither waits for it nor, when it
/// was its kind's second process, holds that kind's attachments back.
struct StepperNamesSchedule {
    /// The I/O thread's time between the end of a write and the next, per unit of time the write took.
    static let pausePerWriteTime: UInt64 = 9

    /// The ``DaemonCore/stepperNamesVersion`` written last.
    private(set) var savedVersion = 0
    /// The earliest time (milliseconds, the loop's clock) the next write may begin.
    private(set) var notBefore: UInt64 = 0

    /// Whether the names at `version` are to be written at `now`.
    func isDue(version: Int, now: UInt64) -> Bool { version != savedVersion && now >= notBefore }

    /// When the loop must wake to write the names at `version`; `nil` when they are written.
    func wakeTime(version: Int) -> UInt64? { version != savedVersion ? notBefore : nil }

    /// The names at `version` were written from `start` to `end`.
    mutating func written(version: Int, start: UInt64, end: UInt64) {
        savedVersion = version
        notBefore = end + (end >= start ? end - start : 0) * Self.pausePerWriteTime
    }
}
