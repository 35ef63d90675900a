/// What ``DaemonCore/recover(from:)`` rebuilt.
package struct RecoveryReport: Sendable, Hashable {
    /// Records replayed.
    package var records = 0
    /// Records skipped (for a session no record created): logged; a journal written by flowd has none.
    package var skipped = 0
    /// Sessions the state holds.
    package var sessions = 0

    package init() {}
}

/// Why flowd cannot rebuild its state from the journal.
public struct RecoveryError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A record that passed its checksum cannot be decoded (written by another flowd version?).
        public static let unreadableRecord = Code("unreadableRecord")
        public var description: String { rawValue }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
