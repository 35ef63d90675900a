import FlowCore
import FlowDaemon
import FlowWire
import Logging
import TestFlows
import Testing

/// §5.1: a stepper that connects after many sessions were created gets every `ATTACH`, though its send queue holds
/// far fewer: they go out in batches, and an `ATTACH` its full queue drops is offered again.
struct LateStepperTests {
    /// The transport's send queue to one peer, as libzmq's high-water mark makes it: `capacity` messages; what does
    /// not fit is reported to the core as dropped (``DaemonCore/sendDropped(_:to:)``), as ``DaemonServer`` does.
    private struct SendQueue {
        let capacity: Int
        var queued: [DaemonMessage] = []

        mutating func carry(_ outputs: [DaemonOutput], to peer: PeerAddress, core: inout DaemonCore) {
            for case .send(let address, let message) in outputs where address == peer {
                if queued.count < capacity { queued.append(message) } else { core.sendDropped(message, to: address) }
            }
        }

        mutating func read(_ count: Int) -> ArraySlice<DaemonMessage> {
            let read = queued.prefix(count)
            queued.removeFirst(read.count)
            return read
        }
    }

    @Test func aLateStepperWithASmallQueueGetsEveryAttachExactlyOnce() throws {
        var configuration = DaemonConfiguration()
        configuration.maxSessions = 2000
        var core = DaemonCore(
            application: TestApplication(), configuration: configuration, daemonID: "d", logger: Logger(
                label: "LateStepperTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0
        )
        _ = core.start(now: 0)
        let codec = WireCodec()
        let operatorPeer = PeerAddress([3])
        let stepper = PeerAddress([2])
        func hello(_ role: PeerRole, _ name: String, serves: [String] = []) -> ClientMessage {
            .hello(Hello(req: 1, role: role, name: name, instance: name, heartbeatMs: 60_000, serves: serves))
        }
        _ = core.handle(.message(from: operatorPeer, frames: codec.encode(hello(.operator, "flowctl"))), now: 0)
        for index in 0..<1000 {
            let create = ClientMessage.createSession(SessionRequest(req: UInt64(10 + index), session: "kiosk-\(index)"))
            _ = core.handle(.message(from: operatorPeer, frames: codec.encode(create)), now: 0)
        }

        // Each session's `home` attachment waits; the stepper's queue holds 100 messages, it reads 50 per turn.
        var queue = SendQueue(capacity: 100)
        var attached: [String: [Int]] = [:]
        var now: UInt64 = 1
        queue.carry(
            core.handle(.message(from: stepper, frames: codec.encode(hello(.stepper, "movies", serves: ["home"]))), now: now),
            to: stepper, core: &core
        )
        var turns = 0
        while attached.count < 1001 || !queue.queued.isEmpty, turns < 5000 {
            for case .attach(let attach) in queue.read(50) { attached[attach.session, default: []].append(attach.attachment) }
            now = max(now + 1, core.nextDeadline(now: now))
            queue.carry(core.handle(.tick, now: now), to: stepper, core: &core)
            turns += 1
        }
        #expect(attached.count == 1001, "sessions whose home attachment reached the stepper")
        #expect(attached.values.allSatisfy { $0 == [2] }, "each once")
        #expect((core.counters.sendsDropped["ATTACH"] ?? 0) > 0, "the queue did overflow")
        #expect(core.holdingsMismatches == [])
        // It took batches of 256 every 20 ms, and a few more for what was dropped: not a heartbeat interval each.
        #expect(now < 5000, "\(now) ms")
    }
}
