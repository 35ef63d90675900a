public import Logging
public import Synchronization

/// What a logger under test logged, line by line: a test makes its logger with ``logger(label:)`` and reads
/// ``lines`` to check a line's level, message and metadata.
///
/// `Sendable`: the lines are behind a mutex.
public final class LogRecorder: Sendable {
    /// One logged line, with the logger's metadata merged under the line's own.
    public struct Line: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    /// The lines so far, in the order they were logged.
    public let lines = Mutex<[Line]>([])

    public init() {}

    /// A logger, at trace level, whose every line is recorded here.
    public func logger(label: String) -> Logger {
        Logger(label: label) { [self] _ in RecordingHandler(self) }
    }

    /// The lines logged so far whose message is `message`.
    public func lines(_ message: String) -> [Line] {
        lines.withLock { $0 }.filter { $0.message == message }
    }
}

/// A log handler that records every line in a ``LogRecorder``.
public struct RecordingHandler: LogHandler {
    let recorder: LogRecorder
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(_ recorder: LogRecorder) { self.recorder = recorder }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        recorder.lines.withLock {
            $0.append(LogRecorder.Line(level: event.level, message: "\(event.message)", metadata: merged))
        }
    }
}
