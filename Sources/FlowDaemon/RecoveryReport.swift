package import FlowCore

/// What ``DaemonCore/recover(from:)`` rebuilt.
package struct RecoveryReport: Sendable, Hashable {
    /// Records replayed.
    package var records = 0
    /// Records skipped (for a session no record created): logged; a journal written by flowd has none.
    package var skipped = 0
    /// Sessions the state holds.
    package var sessions = 0
    /// Of those, sessions whose records only created them, kept pending: made on first use or after start.
    package var pendingSessions = 0
    /// Whether the records named the state's daemon ID (they do unless the state is new).
    package var recoveredDaemonID = false
    /// Sessions made again from a saved state (`state` records) rather than from their history.
    package var restoredSessions = 0

    package init() {}
}

/// How far a recovery has come: records replayed of the total (the snapshot's and the journal's).
package struct RecoveryProgress: Sendable, Hashable {
    package var replayed: Int
    package var total: Int
}

/// Why flowd cannot rebuild its state from the journal's records (the files' own checks are ``JournalError``'s).
package struct RecoveryError: Error, Sendable, CustomStringConvertible {
    package typealias Code = ErrorCode<RecoveryError>

    package let code: Code
    package let message: String
    /// The record's position among those recovered (the snapshot's, then the journal's), from 0.
    package let record: Int?
    /// The file the record is in, once the daemon located it (``located(file:offset:)``).
    package private(set) var file: String?
    /// The offset of the record's frame in ``file`` (or of its length in a snapshot's payload).
    package private(set) var offset: Int?

    package init(_ code: Code, _ message: String, record: Int? = nil) {
        self.code = code
        self.message = message
        self.record = record
    }

    /// The same error, naming the file and offset of its record.
    func located(file: String, offset: Int?) -> RecoveryError {
        var located = self
        located.file = file
        located.offset = offset
        return located
    }

    package var description: String {
        guard let file else { return "\(code): \(message)" }
        return "\(code): \(file)\(offset.map { " at offset \($0)" } ?? ""): \(message)"
    }
}

extension ErrorCode<RecoveryError> {
    /// A record that passed its checksum cannot be decoded.
    package static var unreadableRecord: Self { Self("unreadableRecord") }
    /// A record that reads well contradicts the records before it (a second `session` record for a live
    /// session, a second `daemon` record that does not replace the first): the journal was tampered with or
    /// damaged in a way its checksums cannot see.
    package static var damagedRecord: Self { Self("damagedRecord") }
    /// A session's saved state names a flow or stepper the application cannot make again (or restores none):
    /// the application changed since the snapshot was written.
    package static var unrestorable: Self { Self("unrestorable") }
    /// A record of a record format version newer than this flowd reads (written by a newer flowd).
    package static var newerRecord: Self { Self("newerRecord") }
    /// A session runs a version of the application's file that the state directory does not keep
    /// (`apps/<version>.flows.yaml`), or the daemon's application is code: flowd does not run the session with
    /// another version.
    package static var missingAppVersion: Self { Self("missingAppVersion") }
}

/// What ``DaemonCore/compactJournal()`` did with each session.
package struct JournalCompaction: Sendable, Hashable {
    /// Sessions saved as data: one `state` record each.
    package var saved = 0
    /// Sessions whose records were one record already (created, or saved, with nothing since).
    package var unchanged = 0
    /// Sessions kept as history, by reason (a ``FlowCore/RestorationError`` code).
    package var keptAsHistory: [String: Int] = [:]

    package init() {}
}
