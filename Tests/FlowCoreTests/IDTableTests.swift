@testable import FlowCore
import Testing

/// The dense table the coordinator tree keeps its coordinators and attachments in: a dictionary's answers, in ID
/// order, through removals and holes.
@Suite struct IDTableTests {
    @Test func valuesComeBackByIDAndInIDOrderWhateverOrderTheyWentIn() {
        var table = IDTable<Int, String>()
        for id in [5, 1, 9, 3, 7] { table[id] = "v\(id)" }
        #expect(table.count == 5)
        #expect(table.ids == [1, 3, 5, 7, 9])
        #expect(table.values == ["v1", "v3", "v5", "v7", "v9"])
        #expect(table[3] == "v3")
        #expect(table[4] == nil)
        #expect(table[10] == nil)
        #expect(table[0] == nil)
    }

    @Test func removingLeavesTheOthersAndAnIDCanComeBack() {
        var table = IDTable<Int, String>()
        for id in 1...5 { table[id] = "v\(id)" }
        #expect(table.removeValue(forKey: 3) == "v3")
        #expect(table.removeValue(forKey: 3) == nil)
        table[5] = nil
        #expect(table.count == 3)
        #expect(table.ids == [1, 2, 4])
        #expect(table[3] == nil)
        table[3] = "again"
        #expect(table.ids == [1, 2, 3, 4])
        #expect(table[3] == "again")
        table[6] = "v6"
        #expect(table.ids == [1, 2, 3, 4, 6])
    }

    @Test func manyRemovalsKeepEveryAnswerRight() {
        var table = IDTable<Int, Int>()
        var reference: [Int: Int] = [:]
        for id in 1...1_000 {
            table[id] = id * 10
            reference[id] = id * 10
        }
        for id in stride(from: 1, through: 1_000, by: 1) where id % 7 != 0 {
            table[id] = nil
            reference[id] = nil
        }
        for id in 1_001...1_010 {
            table[id] = id
            reference[id] = id
        }
        #expect(table.count == reference.count)
        #expect(table.ids == reference.keys.sorted())
        for id in 0...1_011 { #expect(table[id] == reference[id]) }
        table.trim()
        #expect(table.ids == reference.keys.sorted())
        #expect(table.isEmpty == false)
    }

    @Test func aValueChangesInPlaceThroughOptionalChaining() {
        var table = IDTable<Int, [Int]>()
        table[1] = [1]
        table[1]?.append(2)
        table[2]?.append(3)  // no value: nothing happens
        #expect(table[1] == [1, 2])
        #expect(table[2] == nil)
        #expect(table.count == 1)
        table[1] = nil
        #expect(table.isEmpty)
    }
}
