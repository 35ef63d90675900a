import Testing
import ZeroMQ

/// ``ZMQNamedFlags``: how poll readiness and monitor event kinds read in logs and test failures.
struct ZMQNamedFlagsTests {
    @Test func oneFlagIsItsNameAndSeveralOrNoneAreBracketed() {
        #expect("\(ZMQEvents.pollIn)" == "pollIn")
        #expect("\(ZMQEvents([.pollIn, .pollOut]))" == "[pollIn, pollOut]")
        #expect("\(ZMQEvents())" == "[]")
        #expect("\(ZMQMonitorEvent.Kind.handshakeFailedAuth)" == "handshakeFailedAuth")
        #expect(
            "\(ZMQMonitorEvent.Kind.handshakeFailed)"
                == "[handshakeFailedNoDetail, handshakeFailedProtocol, handshakeFailedAuth]")
    }
}
