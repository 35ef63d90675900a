import FlowDaemon
import Testing
import ZeroMQ

/// The ZAP handler (ZeroMQ RFC 27) over the allow-list.
struct ZAPHandlerTests {
    private func request(
        domain: String, mechanism: String = "CURVE", key: [UInt8]?, version: String = "1.0"
    ) -> [[UInt8]] {
        var frames: [[UInt8]] = [
            Array("zap-peer".utf8), [], Array(version.utf8), Array("42".utf8), Array(domain.utf8),
            Array("127.0.0.1".utf8), [], Array(mechanism.utf8),
        ]
        if let key { frames.append(key) }
        return frames
    }

    private func status(_ reply: [[UInt8]]) -> String { String(decoding: reply[4], as: UTF8.self) }

    @Test func anAllowedKeyGets200WithItsKeyAsUserID() throws {
        let policy = try testPolicy()
        let (reply, decision) = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: AllowListKeys.movies.bytes), policy: policy))
        #expect(reply.count == 8)
        #expect(reply[0] == Array("zap-peer".utf8) && reply[1].isEmpty)
        #expect(reply[2] == Array("1.0".utf8) && reply[3] == Array("42".utf8))
        #expect(status(reply) == "200")
        #expect(reply[6] == Array(AllowListKeys.movies.z85.utf8))
        #expect(decision.allowed && decision.client == "movies" && decision.publicKey == AllowListKeys.movies.z85)
    }

    @Test func anUnknownKeyGets400AndNoUserID() throws {
        let (reply, decision) = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: AllowListKeys.stranger.bytes), policy: try testPolicy())
        )
        #expect(status(reply) == "400")
        #expect(reply[6].isEmpty)
        #expect(!decision.allowed && decision.client == nil)
    }

    @Test func onlyOperatorKeysMayWatchTheEventsByDefault() throws {
        let policy = try testPolicy()
        let operatorReply = try #require(
            ZAPHandler.answer(request(domain: "flowd.events", key: AllowListKeys.admin.bytes), policy: policy))
        #expect(status(operatorReply.reply) == "200")
        let presenterReply = try #require(
            ZAPHandler.answer(request(domain: "flowd.events", key: AllowListKeys.tui.bytes), policy: policy))
        #expect(status(presenterReply.reply) == "400")
        #expect(presenterReply.decision.client == "tui")
        // An unknown domain lets nobody in.
        let unknown = try #require(ZAPHandler.answer(request(domain: "other", key: AllowListKeys.admin.bytes), policy: policy))
        #expect(status(unknown.reply) == "400")
        // The roles are configurable.
        let open = try AccessPolicy(clients: policy.clients, eventsRoles: [.operator, .presenter])
        #expect(
            status(
                try #require(ZAPHandler.answer(request(domain: "flowd.events", key: AllowListKeys.tui.bytes), policy: open))
                    .reply) == "200")
    }

    @Test func otherMechanismsAndMalformedRequestsAreRefused() throws {
        let policy = try testPolicy()
        let plain = try #require(
            ZAPHandler.answer(request(domain: "flowd", mechanism: "NULL", key: nil), policy: policy))
        #expect(status(plain.reply) == "400")
        let version = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: AllowListKeys.admin.bytes, version: "2.0"), policy: policy))
        #expect(status(version.reply) == "500")
        let shortKey = try #require(ZAPHandler.answer(request(domain: "flowd", key: [1, 2, 3]), policy: policy))
        #expect(status(shortKey.reply) == "400")
        #expect(ZAPHandler.answer([[1], [], Array("1.0".utf8)], policy: policy) == nil)
    }
}
