import FlowWire
import Testing
import WireSamples

/// `ClientMessage` and `DaemonMessage`: each type goes one way (`HEARTBEAT` both), and a typed message's type and
/// req are its `WireMessage`'s.
struct MessageDirectionTests {
    /// The types a client sends, as docs/PROTOCOL.md's headings say.
    static let clientTypes: Set<MessageType> = [
        .hello, .heartbeat, .bye, .step, .adapted, .sync, .ack, .report, .userAction, .sessions, .tree, .deepLink,
        .createSession, .endSession, .health, .describe,
    ]
    /// The types the daemon sends.
    static let daemonTypes: Set<MessageType> = [
        .welcome, .heartbeat, .ok, .error, .attach, .detach, .action, .adapt, .snapshot, .command, .event,
    ]

    @Test func everyTypeGoesTheWayTheProtocolSaysAndOnlyHeartbeatGoesBoth() {
        #expect(Self.clientTypes.union(Self.daemonTypes) == Set(MessageType.allCases))
        #expect(Self.clientTypes.intersection(Self.daemonTypes) == [.heartbeat])
        #expect(Set(WireSamples.messages.map(\.type)) == Set(MessageType.allCases))
        for message in WireSamples.messages {
            switch message {
            case .client(let client):
                #expect(Self.clientTypes.contains(message.type), "\(message)")
                #expect(client.wire == message)
                #expect(client.type == message.type && client.req == message.req)
            case .daemon(let daemon):
                #expect(Self.daemonTypes.contains(message.type), "\(message)")
                #expect(daemon.wire == message)
                #expect(daemon.type == message.type && daemon.req == message.req)
            }
        }
    }
}
