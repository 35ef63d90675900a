/// Session IDs kept sorted in chunks of at most ``chunkLimit``: creating or ending a session moves the IDs of one
/// chunk, not of every session after it (a flat sorted array moved about 0.8 MB of references per `CREATE_SESSION`
/// with a random ID at 100 000 sessions, docs/PERFORMANCE.md).
struct SortedSessionIDs {
    /// The chunks in order, none empty, each sorted; every ID of a chunk is below every ID of the next.
    private var chunks: [[String]] = []
    private(set) var count = 0
    /// The most IDs a chunk holds: a full chunk is split in two.
    let chunkLimit: Int
    /// IDs moved within a chunk or into a new one by inserts and removals (for the tests that bound that work).
    private(set) var moved = 0

    init(chunkLimit: Int = 512) {
        self.chunkLimit = max(2, chunkLimit)
    }

    /// Every ID, sorted (a walk).
    var all: [String] { Array(chunks.joined()) }

    /// Adds `id`, which is not there yet.
    mutating func insert(_ id: String) {
        count += 1
        guard !chunks.isEmpty else {
            chunks.append([id])
            return
        }
        let chunk = chunkIndex(of: id)
        let position = Self.position(of: id, in: chunks[chunk])
        moved += chunks[chunk].count - position
        chunks[chunk].insert(id, at: position)
        if chunks[chunk].count > chunkLimit {
            let half = chunks[chunk].count / 2
            let upper = Array(chunks[chunk][half...])
            chunks[chunk].removeSubrange(half...)
            chunks.insert(upper, at: chunk + 1)
            moved += upper.count
        }
    }

    /// Removes `id`, which is there.
    mutating func remove(_ id: String) {
        guard !chunks.isEmpty else { return }
        let chunk = chunkIndex(of: id)
        let position = Self.position(of: id, in: chunks[chunk])
        guard position < chunks[chunk].count, chunks[chunk][position] == id else { return }
        count -= 1
        moved += chunks[chunk].count - position - 1
        chunks[chunk].remove(at: position)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    }

    /// Up to `limit` IDs after `after` (exclusive) that start with `prefix`, sorted; and whether more follow.
    func ids(after: String?, prefix: String, limit: Int) -> (ids: [String], more: Bool) {
        var start: (chunk: Int, index: Int) = after.map { self.start(after: $0) } ?? (0, 0)
        if !prefix.isEmpty {
            let first = self.start(atOrAbove: prefix)
            if first.chunk > start.chunk || (first.chunk == start.chunk && first.index > start.index) { start = first }
        }
        var ids: [String] = []
        var (chunk, index) = start
        while chunk < chunks.count {
            if index == chunks[chunk].count {
                chunk += 1
                index = 0
                continue
            }
            let id = chunks[chunk][index]
            guard id.hasPrefix(prefix) else { return (ids, false) }
            guard ids.count < limit else { return (ids, true) }
            ids.append(id)
            index += 1
        }
        return (ids, false)
    }

    /// The chunk that holds `id` or would: the first whose last ID is not below it, else the last.
    private func chunkIndex(of id: String) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].last! < id { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Where the first ID not below `id` is.
    private func start(atOrAbove id: String) -> (chunk: Int, index: Int) {
        guard !chunks.isEmpty else { return (0, 0) }
        let chunk = chunkIndex(of: id)
        return (chunk, Self.position(of: id, in: chunks[chunk]))
    }

    /// Where the first ID above `id` is.
    private func start(after id: String) -> (chunk: Int, index: Int) {
        let (chunk, index) = start(atOrAbove: id)
        guard chunk < chunks.count, index < chunks[chunk].count, chunks[chunk][index] == id else {
            return (chunk, index)
        }
        return (chunk, index + 1)
    }

    /// The first index of `ids` (sorted) whose ID is not below `id`.
    private static func position(of id: String, in ids: [String]) -> Int {
        var low = 0
        var high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
