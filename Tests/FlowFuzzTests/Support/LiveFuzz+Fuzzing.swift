import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import Synchronization
import TestFlows
import Testing
import ZeroMQ

// What the live fuzz sends and what it expects back.
extension LiveFuzz {
    /// The next case a dealer sends and the reply it waits for; a case that would not surely be refused is skipped
    /// (a HELLO that decodes, from a dealer that must stay unknown; anything that decodes, from a welcomed one).
    mutating func nextCase(for dealer: Dealer, dealers: Int) -> (frames: [[UInt8]], expectation: Expectation) {
        while true {
            let index = dealer.nextCase
            dealer.nextCase += dealers
            var rng = SplitMix64(seed: seed, case: index)
            let fuzzCase = fuzzer.make(&rng)
            let frames = fuzzCase.frames
            // ZeroMQ has no message without frames; one over the hard limit is sent apart (``sendOversized(from:)``),
            // with nothing else in flight.
            guard !frames.isEmpty, !frames.contains(where: { $0.count > Self.hardLimit }) else {
                report.skipped += 1
                continue
            }
            // Frames the codec refuses before reading the body need no decoding to know the answer.
            if let verdict = Self.frameLevelRefusal(frames) { return (frames, verdict) }
            // Only frames that could be a HELLO need decoding to know what an unknown dealer gets back; the others
            // are decoded on a sample, to check the daemon gives the codec's code.
            let mayBeHello = frames.count == 3 && frames[1] == helloType && frames[0] == WireProtocol.signature
            if dealer.role == nil, !mayBeHello, index % 8 != 0 {
                return (frames, .error(code: nil, req: nil))
            }
            do throws(WireError) {
                let message = try codec.decode(frames, from: .client)
                if dealer.role == nil, message.type != .hello {
                    return (frames, .error(code: "notWelcome", req: .some(message.req)))
                }
                report.skipped += 1
            } catch {
                let refusal = daemonRefusal(of: error, welcomed: dealer.role != nil)
                return (frames, .error(code: refusal.code.rawValue, req: .some(refusal.req)))
            }
        }
    }

    /// The refusal of frames whose shape, signature, type or size is wrong, as `WireCodec.decode` checks them
    /// before reading the body (`docs/PROTOCOL.md` §2-§3); `nil` when they pass. The `req` of a refusal whose body
    /// is read for its `req` is left unchecked.
    static func frameLevelRefusal(_ frames: [[UInt8]]) -> Expectation? {
        guard frames.count == 3 else { return .error(code: "malformedFrame", req: .some(nil)) }
        if frames[0] != WireProtocol.signature {
            let version = frames[0].dropFirst(WireProtocol.signaturePrefix.count)
            if frames[0].starts(with: WireProtocol.signaturePrefix), !version.isEmpty,
                version.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                return .error(code: "unsupportedVersion", req: nil)
            }
            return .error(code: "malformedFrame", req: .some(nil))
        }
        guard MessageType(rawValue: String(decoding: frames[1], as: UTF8.self)) != nil else {
            return .error(code: "unknownType", req: nil)
        }
        guard frames[2].count <= WireProtocol.defaultMaxBodyBytes else {
            return .error(code: "messageTooLarge", req: nil)
        }
        return nil
    }

    /// The daemon's `ZMQ_MAXMSGSIZE` (``ZMQSocketOptions``' default).
    static let hardLimit = 1 << 20

    mutating func fuzz(_ dealers: [Dealer], messages: Int, oversized: Int, window: Int) throws {
        let poller = ZMQPoller()
        for dealer in dealers {
            poller.register(dealer.socket, for: .pollIn)
            poller.register(dealer.monitor, for: .pollIn)
        }
        // The oversized messages go out at even intervals, from each dealer in turn.
        var oversizedAt = (1...oversized).map { $0 * messages / (oversized + 1) }
        var oversizedSent = 0
        let clock = ContinuousClock()
        var lastProgress = clock.now
        while report.sent < messages
            || dealers.contains(where: { $0.outstanding > 0 || $0.reconnecting || $0.oversizedDue })
        {
            if let next = oversizedAt.first, report.sent >= next {
                oversizedAt.removeFirst()
                dealers[oversizedSent % dealers.count].oversizedDue = true
                oversizedSent += 1
            }
            for dealer in dealers where !dealer.reconnecting {
                if dealer.oversizedDue {
                    // Nothing may be in flight on the connection libzmq is about to drop.
                    guard dealer.outstanding == 0 else { continue }
                    try sendOversized(from: dealer)
                    continue
                }
                while dealer.outstanding < window, report.sent < messages {
                    let next = dealer.pending ?? nextCase(for: dealer, dealers: dealers.count)
                    if try !dealer.socket.trySend(ZMQMessage(next.frames)) {
                        dealer.pending = next
                        break
                    }
                    dealer.pending = nil
                    dealer.expect(next.expectation)
                    report.sent += 1
                }
            }
            let ready = try poller.poll(timeout: .milliseconds(100))
            var progressed = false
            for (index, dealer) in dealers.enumerated() {
                if ready[2 * index].contains(.pollIn) {
                    while let message = try dealer.socket.tryReceive() {
                        progressed = true
                        check(message, from: dealer)
                    }
                }
                if ready[2 * index + 1].contains(.pollIn) {
                    while let message = try dealer.monitor.tryReceive() {
                        progressed = true
                        try connectionEvent(message, of: dealer)
                    }
                }
            }
            if progressed {
                lastProgress = clock.now
            } else if lastProgress.duration(to: clock.now) > .seconds(60) {
                let waiting = dealers.map {
                    "\($0.name): \($0.outstanding) outstanding, reconnecting \($0.reconnecting)"
                }
                return fail("no reply nor connection event for 60 s (a hang?): \(waiting)")
            }
        }
    }

    /// Sends one message over the socket's hard limit: libzmq on the daemon's side drops the connection.
    private mutating func sendOversized(from dealer: Dealer) throws {
        var rng = SplitMix64(seed: seed, case: Int(Int32.max) - report.oversizedSent)
        let size = Self.hardLimit + 1 + rng.below(3 * Self.hardLimit)
        let body = Array(#"{"req":1,"pad":""#.utf8) + Array(repeating: 0x78, count: size) + Array(#""}"#.utf8)
        try dealer.socket.send(ZMQMessage([WireProtocol.signature, Array("HEALTH".utf8), body]))
        dealer.oversizedDue = false
        dealer.reconnecting = true
        dealer.disconnected = false
        report.oversizedSent += 1
    }

    private mutating func connectionEvent(_ message: ZMQMessage, of dealer: Dealer) throws {
        guard let event = ZMQMonitorEvent(message) else { return }
        if event.kind.contains(.disconnected) {
            if !dealer.reconnecting { return fail("\(dealer.name) disconnected without an oversized message") }
            dealer.disconnected = true
            report.disconnects += 1
        } else if event.kind.contains(.handshakeSucceeded), dealer.reconnecting, dealer.disconnected {
            dealer.reconnecting = false
            report.reconnects += 1
            // A new connection: the daemon does not know it; a welcomed dealer says HELLO again.
            try hello(dealer)
        }
    }

    /// Checks one message a dealer received against what it waits for.
    private mutating func check(_ message: ZMQMessage, from dealer: Dealer) {
        let frames = message.frames
        guard frames.count == 3, frames[0] == WireProtocol.signature else {
            return fail("\(dealer.name) received \(message)")
        }
        let type = String(decoding: frames[1], as: UTF8.self)
        if type == "HEARTBEAT" { return }
        guard let expectation = dealer.takeExpectation() else {
            return fail("\(dealer.name) received \(type) it did not ask for")
        }
        report.replies += 1
        let (code, req) = (expectation.code, expectation.req)
        guard type == "ERROR" else {
            let body = String(decoding: frames[2], as: UTF8.self)
            return fail("\(dealer.name) received \(type) \(body), expecting \(expectation)")
        }
        // The code, read straight from the body; the whole reply decoded on a sample.
        guard let received = Self.code(in: frames[2]) else {
            return fail("\(dealer.name): an ERROR without a code: \(String(decoding: frames[2], as: UTF8.self))")
        }
        report.tally.add(received)
        if let code, code != received { fail("\(dealer.name): \(received), expected \(code)") }
        if req != nil || report.replies % 64 == 0 {
            guard case .daemon(.error(let reply))? = try? codec.decode(frames, from: .daemon) else {
                let body = String(decoding: frames[2], as: UTF8.self)
                return fail("\(dealer.name): an ERROR that does not decode: \(body)")
            }
            if let req, reply.req != req {
                fail("\(dealer.name): ERROR req \(String(describing: reply.req)), expected \(String(describing: req))")
            }
            if reply.message.isEmpty { fail("\(dealer.name): an ERROR without text") }
        }
    }

    /// The `code` of an ERROR body as the daemon writes it (`{"code":"…",…}`).
    static func code(in body: [UInt8]) -> String? {
        let key = Array(#""code":""#.utf8)
        guard body.count > key.count, Array(body[1..<(1 + key.count)]) == key else { return nil }
        let start = 1 + key.count
        guard let end = body[start...].firstIndex(of: 0x22) else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }
}
