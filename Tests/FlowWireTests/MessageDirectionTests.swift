import FlowWire
import Testing

/// `ClientMessage` and `DaemonMessage`: each type goes one way (`HEARTBEAT` both), and the typed message is the
/// decoded one, unchanged.
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
        #expect(Set(roundTripMessages.map(\.type)) == Set(MessageType.allCases))
        for message in roundTripMessages {
            let client = ClientMessage(message)
            let daemon = DaemonMessage(message)
            #expect((client != nil) == Self.clientTypes.contains(message.type), "\(message)")
            #expect((daemon != nil) == Self.daemonTypes.contains(message.type), "\(message)")
            if let client {
                #expect(client.wire == message)
                #expect(client.type == message.type && client.req == message.req)
            }
            if let daemon {
                #expect(daemon.wire == message)
                #expect(daemon.type == message.type && daemon.req == message.req)
            }
        }
    }
}
