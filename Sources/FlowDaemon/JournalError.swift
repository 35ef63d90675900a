/// What went wrong with the state directory.
///
/// Equality looks at the code only.
public struct JournalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; an open set of codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A system call on the state directory failed (permissions, disk full, I/O error).
        public static let io = Code("io")
        /// Another process (another flowd) holds the state directory's lock.
        public static let locked = Code("locked")
        /// The files are damaged beyond a torn tail (a bad snapshot, a journal newer than the snapshot): nothing
        /// was changed; an operator has to look.
        public static let corrupt = Code("corrupt")
        /// The files were written by another format version of flowd.
        public static let incompatible = Code("incompatible")
        /// An appended record was larger than ``JournalStore/maxRecordBytes``.
        public static let recordTooLarge = Code("recordTooLarge")
        /// The store is closed, or `load()` has not run yet.
        public static let notOpen = Code("notOpen")
        /// An earlier failure (a failed `fdatasync`, a compaction that failed half-way) left the store in a state
        /// that cannot be trusted: the daemon should stop; the next start recovers from the files.
        public static let unusable = Code("unusable")

        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// Details for a person (the file and the system's error text).
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: JournalError, rhs: JournalError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `locked: /var/lib/flowd is in use by another flowd (pid 812)`.
    public var description: String { "\(code): \(message)" }
}

/// What ``JournalStore/load()`` found.
package struct JournalContents: Sendable {
    /// The last snapshot's payload, `nil` if none.
    package var snapshot: [UInt8]?
    /// Records appended after that snapshot, in order.
    package var records: [[UInt8]]
    /// Bytes of a torn or corrupt tail that were cut off the journal (and logged); 0 normally.
    package var discardedBytes: Int

    package init(snapshot: [UInt8]?, records: [[UInt8]], discardedBytes: Int) {
        self.snapshot = snapshot
        self.records = records
        self.discardedBytes = discardedBytes
    }
}
