import FlowClient
import FlowClientTesting
@testable import FlowDaemon
import FlowWire
import Logging
import Testing

/// A message over a `FlowClient` client's default largest message is sent all the same and logged at `warning`: the
/// 1st, 10th, 100th… (docs/LIMITS.md, *Known gaps*).
struct LargeSendWarningTests {
    private static let message =
        "sent a message larger than a FlowClient client takes by default: it drops the connection (docs/LIMITS.md)"

    @Test func theLimitIsAFlowClientClientsDefault() {
        #expect(LargeSendWarning().limit == Int(FlowClientConfiguration.defaultMaxMessageSize))
        #expect(LargeSendWarning().limit == 128 << 20)
    }

    @Test func aMessageOverTheLimitIsLoggedTheFirstTenthAndHundredthTime() throws {
        let recorder = LogRecorder()
        let logger = recorder.logger(label: "flowd")
        var warning = LargeSendWarning(limit: 1000)
        let peer = PeerAddress([0x00, 0x6b])
        warning.sent(.snapshot, bytes: 1000, to: peer, logger: logger)
        #expect(warning.count == 0 && recorder.lines(Self.message).isEmpty, "at the limit: taken")
        for _ in 0..<100 { warning.sent(.snapshot, bytes: 1001, to: peer, logger: logger) }
        warning.sent(.command, bytes: 10, to: peer, logger: logger)
        #expect(warning.count == 100)
        let lines = recorder.lines(Self.message)
        #expect(lines.map(\.level) == [.warning, .warning, .warning])
        #expect(lines.map { $0.metadata["larger_so_far"]?.description } == ["1", "10", "100"])
        let first = try #require(lines.first)
        #expect(first.metadata["type"]?.description == "SNAPSHOT")
        #expect(first.metadata["bytes"]?.description == "1001")
        #expect(first.metadata["limit"]?.description == "1000")
        #expect(first.metadata["peer"]?.description == "006b")
    }
}
