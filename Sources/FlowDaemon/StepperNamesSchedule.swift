/// When the `stepper-names` file (``StepperNamesFile``) is written again after the stepper processes changed: at once,
/// unless the last write was long, then once writing has taken at most a tenth of the time since it began. The file
/// holds every connected process's name and is written whole, so a burst of thousands of processes saying `HELLO`
/// (every service reconnecting after a restart) rewrote a file growing with each: 2000 joins took 55 s of the I/O
/// thread instead of 1.5 s (debug build, 1.1 MB file). A write put off costs at most one grace if flowd dies first.
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
