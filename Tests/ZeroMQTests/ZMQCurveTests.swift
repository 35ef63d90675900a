import Testing
import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQCurveTests {
    @Test func curveIsAvailableInThisLibzmq() {
        #expect(ZMQCurve.isAvailable)
    }

    @Test func keyPairAndZ85RoundTrip() throws {
        let pair = try ZMQCurve.generateKeyPair()
        #expect(pair.publicKey != pair.secretKey)
        #expect(pair.publicKey.z85.utf8.count == 40)
        #expect(try ZMQCurveKey(z85: pair.publicKey.z85) == pair.publicKey)
        #expect(try ZMQCurveKey(bytes: pair.secretKey.bytes) == pair.secretKey)
        #expect(try ZMQCurve.publicKey(for: pair.secretKey) == pair.publicKey)
        #expect(try ZMQCurve.generateKeyPair() != pair)

        // Descriptions never show a secret key.
        #expect(!"\(pair)".contains(pair.secretKey.z85))
        #expect(!"\(pair.secretKey)".contains(pair.secretKey.z85))

        let bytes: [UInt8] = (0..<32).map { UInt8($0 * 7 % 256) }
        #expect(try ZMQCurve.z85Decode(ZMQCurve.z85Encode(bytes)) == bytes)
        // RFC 32's test vector.
        #expect(try ZMQCurve.z85Encode([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]) == "HelloWorld")
        #expect(try ZMQCurve.z85Decode("HelloWorld") == [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B])
    }

    @Test func malformedKeysAreRejected() {
        #expect(throws: ZMQError(.invalidArgument, call: "")) { try ZMQCurve.z85Encode([1, 2, 3]) }
        #expect(throws: ZMQError(.invalidArgument, call: "")) { try ZMQCurve.z85Decode("1234") }
        #expect(throws: ZMQError(.invalidArgument, call: "")) { try ZMQCurve.z85Decode("Hello Wor\"") }
        #expect(throws: ZMQError(.invalidArgument, call: "")) { try ZMQCurveKey(bytes: [1, 2, 3]) }
        #expect(throws: ZMQError(.invalidArgument, call: "")) { try ZMQCurveKey(z85: "HelloWorld") }
    }

    @Test func curveEncryptedDealerRouterExchangeKeepsPlaintextOut() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let server = try ZMQCurve.generateKeyPair()
        let client = try ZMQCurve.generateKeyPair()

        let router = try await loop.makeSocket(.router)
        try await loop.setOption(.curveServer, to: true, on: router)
        try await loop.setOption(.curveSecretKey, to: server.secretKey, on: router)
        #expect(try await loop.option(.curveServer, of: router))
        let monitor = try await loop.startMonitor(router, events: [.handshakeSucceeded, .handshakeFailed])
        let endpoint = try await loop.bind(router, to: "tcp://127.0.0.1:*")

        // A plaintext client. With ZMQ_IMMEDIATE its message can only leave on a completed handshake, so it waits in
        // the loop for as long as the server refuses it.
        let plaintext = try await loop.makeSocket(.dealer)
        try await loop.setOption(.routingID, to: Array("plaintext".utf8), on: plaintext)
        try await loop.connect(plaintext, to: endpoint)
        try await withThrowingTaskGroup(of: ZMQError?.self) { group in
            group.addTask {
                do throws(ZMQError) {
                    try await loop.send(.text("let me in"), on: plaintext)
                    return nil
                } catch {
                    return error
                }
            }
            let refused = await awaitMonitorEvent(on: monitor, [.handshakeFailed, .handshakeSucceeded])
            #expect(refused.last.map { !$0.kind.isDisjoint(with: .handshakeFailed) } == true)
            while (try? await loop.pendingSendCount(on: plaintext)) == 0 {
                await Task.yield()
            }

            let secure = try await loop.makeSocket(.dealer)
            try await loop.setOption(.curveServerKey, to: server.publicKey, on: secure)
            try await loop.setOption(.curvePublicKey, to: client.publicKey, on: secure)
            try await loop.setOption(.curveSecretKey, to: client.secretKey, on: secure)
            try await loop.setOption(.routingID, to: Array("secure".utf8), on: secure)
            try await loop.connect(secure, to: endpoint)
            try await loop.send(.text("hello", "server"), on: secure)  // waits for the CURVE handshake
            let accepted = await awaitMonitorEvent(on: monitor, [.handshakeFailed, .handshakeSucceeded])
            #expect(accepted.last?.kind == .handshakeSucceeded)

            let request = await router.messages.next()
            #expect(request == .text("secure", "hello", "server"))
            try await loop.send(.text("secure", "welcome"), on: router)
            #expect(await secure.messages.next() == .text("welcome"))

            // The plaintext message never got through and is still waiting; shutdown ends it.
            #expect(router.messages.tryNext() == nil)
            #expect(try await loop.pendingSendCount(on: plaintext) == 1)
            await loop.shutdown()
            #expect(try await group.next() ?? nil == ZMQError(.terminated, call: ""))
        }
        #expect(await router.messages.next() == nil)
    }
}
