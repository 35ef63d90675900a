package import FlowCore

/// What went wrong with the state directory.
///
/// Equality looks at the code only.
package struct JournalError: CodedError, Sendable {
    /// The kind of failure; an open set of codes.
    package typealias Code = ErrorCode<JournalError>

    /// What went wrong.
    package let code: Code
    /// Details for a person (the file and the system's error text).
    package let message: String
    /// The file at fault, when one is.
    package let file: String?
    /// Where in ``file`` the damage starts, when that is known.
    package let offset: Int?

    /// An error with `code` and `message`.
    package init(_ code: Code, _ message: String, file: String? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
    }
}

extension ErrorCode<JournalError> {
    /// A system call on the state directory failed (permissions, disk full, I/O error).
    package static var io: Self { Self("io") }
    /// Another process (another flowd) holds the state directory's lock.
    package static var locked: Self { Self("locked") }
    /// The files are damaged beyond a torn tail (a bad snapshot, a journal newer than the snapshot): nothing
    /// was changed; an operator has to look.
    package static var corrupt: Self { Self("corrupt") }
    /// The live journal is damaged before its tail (a frame that does not check, followed by frames that do):
    /// acknowledged records would be lost by cutting it. Nothing was changed; ``JournalError/file`` and
    /// ``JournalError/offset`` say where. An operator may start from the records before it with
    /// ``JournalDamagePolicy/truncate``.
    package static var damaged: Self { Self("damaged") }
    /// The files were written by another format version of flowd.
    package static var incompatible: Self { Self("incompatible") }
    /// An appended record was larger than ``JournalStore/maxRecordBytes``.
    package static var recordTooLarge: Self { Self("recordTooLarge") }
    /// A compaction was started while one runs (``JournalStore/isCompacting``): the caller's mistake.
    package static var compacting: Self { Self("compacting") }
    /// The store is closed, or `load()` has not run yet.
    package static var notOpen: Self { Self("notOpen") }
    /// An earlier failure (a failed `fdatasync`, a compaction that failed half-way) left the store in a state
    /// that cannot be trusted: the daemon should stop; the next start recovers from the files.
    package static var unusable: Self { Self("unusable") }
}

/// What ``JournalStore/load()`` found.
package struct JournalContents: Sendable {
    /// The last snapshot's payload, `nil` if none or when it was split into ``snapshotRecords``.
    package var snapshot: [UInt8]?
    /// The last snapshot's records, when ``JournalStore/load(splittingSnapshot:)`` was asked to split it.
    package var snapshotRecords: [[UInt8]] = []
    /// Records appended after that snapshot, in order: those of each journal from the snapshot's generation on.
    package var records: [[UInt8]]
    /// The offset of each record's frame in its journal (``journalPaths``).
    package var recordOffsets: [Int]
    /// Bytes cut off the journals (and logged): a torn tail, a journal that followed an older one's lost tail, or
    /// under ``JournalDamagePolicy/truncate`` the damage and what follows it; 0 normally.
    package var discardedBytes: Int
    /// Damage cut off under ``JournalDamagePolicy/truncate``; `nil` when there was none (a torn tail is not damage).
    package var damage: JournalDamage?
    /// The journals read, in order (more than one when a compaction did not end); the last is the live one.
    package var journalPaths: [String]
    /// The index in ``records`` of each journal's first record.
    package var journalFirstRecords: [Int]

    /// The live journal's path.
    package var journalPath: String { journalPaths.last ?? "" }

    package init(
        snapshot: [UInt8]?, records: [[UInt8]], recordOffsets: [Int] = [], discardedBytes: Int,
        damage: JournalDamage? = nil, journalPaths: [String] = [], journalFirstRecords: [Int] = []
    ) {
        self.snapshot = snapshot
        self.records = records
        self.recordOffsets = recordOffsets
        self.discardedBytes = discardedBytes
        self.damage = damage
        self.journalPaths = journalPaths
        self.journalFirstRecords = journalFirstRecords.isEmpty ? journalPaths.map { _ in 0 } : journalFirstRecords
    }

    /// The journal (an index in ``journalPaths``) that record `position` of ``records`` comes from.
    package func journal(ofRecord position: Int) -> Int {
        (journalFirstRecords.lastIndex { $0 <= position }) ?? 0
    }
}

/// Damage that ``JournalDamagePolicy/truncate`` cut off the live journal.
package struct JournalDamage: Sendable, Hashable {
    /// The journal that was cut.
    package var file: String
    /// Where it was cut (what was damaged starts here).
    package var offset: Int
    /// How many bytes were cut.
    package var discardedBytes: Int
    /// Where the whole journal, as it was, is kept.
    package var keptAs: String
    /// What was wrong there.
    package var reason: String
}
