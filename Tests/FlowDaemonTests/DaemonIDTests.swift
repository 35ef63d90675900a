@testable import FlowDaemon
import Testing

/// A daemon run's ID (`WELCOME.daemon`, docs/PROTOCOL.md §3): 32 hex digits whatever its random words are.
struct DaemonIDTests {
    /// Gives `values` in turn.
    private struct Fixed: RandomNumberGenerator {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
    }

    @Test func aDaemonIDIs32HexDigitsEvenWhenItsWordsAreSmall() {
        var small = Fixed(values: [0, 1, 0xABC, 0xFFFF_FFFF])
        #expect(DaemonServer.makeDaemonID(using: &small) == "00000000" + "00000001" + "00000abc" + "ffffffff")
        var system = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let id = DaemonServer.makeDaemonID(using: &system)
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
        }
    }
}
