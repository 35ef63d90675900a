@testable import FlowDaemon
import Testing

/// The session table's sorted IDs: the order and pages of a sorted array, and an insert or removal that moves one
/// chunk's IDs, not every ID after it.
struct SortedSessionIDsTests {
    /// A reproducible order of `count` distinct IDs (a linear congruential walk over 0..<count).
    private func shuffledIDs(_ count: Int) -> [String] {
        (0..<count).map { index in
            let number = (index * 7_919 + 13) % count
            return "s-\(String(number, radix: 16))-\(number % 7)"
        }
    }

    @Test("Random inserts and removals keep every ID in order, each moving IDs of one chunk only")
    func insertsAndRemovalsKeepTheOrderAndMoveOneChunk() {
        var ids = SortedSessionIDs(chunkLimit: 16)
        var reference: [String] = []
        let all = shuffledIDs(2_000)
        for id in all {
            let before = ids.moved
            ids.insert(id)
            // One chunk's IDs, and half of them again when the chunk splits.
            #expect(ids.moved - before <= 16 + 9, "an insert moved \(ids.moved - before) IDs")
            reference.append(id)
        }
        reference.sort()
        #expect(ids.all == reference)
        #expect(ids.count == 2_000)
        for id in all.prefix(1_500) where id.hasSuffix("3") || id.hasSuffix("5") {
            let before = ids.moved
            ids.remove(id)
            #expect(ids.moved - before <= 16)
            reference.removeAll { $0 == id }
        }
        ids.remove("not-there")
        #expect(ids.all == reference)
        #expect(ids.count == reference.count)
        for id in reference.prefix(300) { ids.remove(id) }
        reference.removeFirst(300)
        #expect(ids.all == reference)
    }

    @Test("Pages across chunks give what a sorted array gives: after, prefix, limit and whether more follow")
    func pagesAcrossChunksMatchASortedArray() {
        var ids = SortedSessionIDs(chunkLimit: 4)
        let all = shuffledIDs(300)
        for id in all { ids.insert(id) }
        let sorted = all.sorted()
        func expected(after: String?, prefix: String, limit: Int) -> (ids: [String], more: Bool) {
            let matching = sorted.filter { id in (after.map { id > $0 } ?? true) && id.hasPrefix(prefix) }
            // A prefix selects a contiguous run: what matches after `after` is the run's tail.
            return (Array(matching.prefix(limit)), matching.count > limit)
        }
        for prefix in ["", "s-1", "s-a", "s-ff", "t"] {
            for after in [nil, "", "s-1", sorted[0], sorted[57], sorted[58], sorted[299], "z"] {
                for limit in [1, 5, 64, 500] {
                    let page = ids.ids(after: after, prefix: prefix, limit: limit)
                    let wanted = expected(after: after, prefix: prefix, limit: limit)
                    #expect(page.ids == wanted.ids && page.more == wanted.more, "after \(after ?? "-") \(prefix) \(limit)")
                }
            }
        }
        var paged: [String] = []
        var after: String?
        repeat {
            let page = ids.ids(after: after, prefix: "", limit: 7)
            paged += page.ids
            after = page.more ? page.ids.last : nil
        } while after != nil
        #expect(paged == sorted)
    }
}
