internal import HeapModule

/// Deadlines, earliest first (then by key, so that things due together are taken in a set order), each for a `key`
/// and made by one watch (its `serial`). An entry stays as it is when what it watches changes: whoever takes it out
/// checks it against the watched thing's serial and watches again if the deadline moved. So a change costs nothing
/// here, a tick costs the entries due, and ``next`` may be early (the tick it wakes finds nothing due).
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
struct DeadlineHeap<Key: Comparable> {
    struct Entry: Comparable {
        let deadline: UInt64
        /// Tells this entry from another for the same key (an older watch, a thing ended and made again).
        let serial: UInt64
        let key: Key

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.key, lhs.serial) < (rhs.deadline, rhs.key, rhs.serial)
        }
    }

    private var heap = Heap<Entry>()

    /// The earliest deadline, if any.
    var next: UInt64? { heap.min?.deadline }

    /// How many entries wait.
    var count: Int { heap.count }

    mutating func insert(_ deadline: UInt64, for key: Key, serial: UInt64) {
        heap.insert(Entry(deadline: deadline, serial: serial, key: key))
    }

    /// The earliest entry, taken out, if its deadline is before `limit`.
    mutating func popFirst(before limit: UInt64) -> Entry? {
        guard let first = heap.min, first.deadline < limit else { return nil }
        return heap.removeMin()
    }
}
