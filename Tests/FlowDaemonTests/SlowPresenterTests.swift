import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import TestFlows
import Testing
import ZeroMQ

/// The limits of docs/LIMITS.md on a live `DaemonServer` (its own I/O thread, ZeroMQ over `ipc://` in a temporary
/// folder), with raw DEALERs as its clients, all driven from one test thread:
///
/// - a presenter that stops reading fills its queue on the control ROUTER (`ZMQ_SNDHWM`, libzmq's 1000 messages):
///   the daemon drops what does not fit and counts it (`sends_dropped` by type), while another presenter gets every
///   command of its session in order, the stepper every reply and the operator every `HEALTH`; when the slow
///   presenter reads again, the daemon's `HEARTBEAT` (or the gap) makes it `SYNC`, and the replay (or, past
///   `outbox_limit`, the snapshot) brings it to the daemon's `seq`, each command applied once;
/// - a body of exactly `max_body_bytes` is served, one byte more is `ERROR messageTooLarge`, and the daemon goes on.
struct SlowPresenterTests {
    /// How the presenter that fell behind catches up.
    struct Recovery: Sendable, CustomTestStringConvertible {
        /// `outbox_limit`: whether the outbox still holds what the presenter missed (`replay`), or not (`snapshot`).
        var outboxLimit: Int
        /// Steps for the slow session while its presenter reads again: none, and only the daemon's `HEARTBEAT`
        /// tells it that it missed commands; some, and the first one after the gap may tell it first.
        var stepsWhileCatchingUp: Int
        var expectedMode: String
        /// `sockets.send_high_water_mark`; libzmq's 1000 when `nil`.
        var sendHighWaterMark: Int32? = nil
        var testDescription: String {
            "outbox_limit \(outboxLimit), \(stepsWhileCatchingUp) steps while catching up, SNDHWM "
                + "\(sendHighWaterMark.map(String.init) ?? "1000"): \(expectedMode)"
        }
    }

    static let recoveries = [
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 0, expectedMode: "replay"),
        Recovery(outboxLimit: 64, stepsWhileCatchingUp: 0, expectedMode: "snapshot"),
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 50, expectedMode: "replay"),
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 0, expectedMode: "replay", sendHighWaterMark: 100),
    ]

    @Test(arguments: recoveries)
    func aStuckPresenterCannotStallTheDaemonOrOtherPresentersAndCatchesUpLater(_ recovery: Recovery) async throws {
        var daemon = DaemonConfiguration()
        daemon.outboxLimit = recovery.outboxLimit
        // Without ZMTP heartbeats (StuckPresenterScenario says why).
        let sockets = ZMQSocketOptions(heartbeat: nil, sendHighWaterMark: recovery.sendHighWaterMark)
        let report = try await withIPCTickerDaemon(daemon, sockets: sockets) { endpoints in
            let scenario = try StuckPresenterScenario(
                endpoint: endpoints.control, stepsWhileCatchingUp: recovery.stepsWhileCatchingUp
            )
            return try scenario.run()
        }
        print(
            "stuck presenter (\(recovery.testDescription)): first drop within \(report.stepsUntilFirstDrop) commands, "
                + "while stuck dropped \(report.commandsDroppedWhileStuck) queued \(report.commandsQueuedWhileStuck), "
                + "sends_dropped \(report.sendsDropped), recovery syncs \(report.recoveryModes) on "
                + "\(report.recoveryTriggers) (a live command after a dropped one: \(report.liveCommandsSkippedASeq)), "
                + "duplicates ignored \(report.duplicatesIgnored), converged at seq \(report.stuckFinalSeq)"
        )
        #expect(report.failures == [], "\(report.failures.joined(separator: "\n"))")
        if recovery.sendHighWaterMark != nil {
            // A smaller queue fills sooner (the socket buffers take a few dozen of these messages more).
            #expect(report.stepsUntilFirstDrop <= 500)
        }

        // While the slow presenter's queue was full, each of its session's commands was dropped and counted, or taken
        // by the queue as libzmq moved earlier ones into the kernel's buffers (then received live, in order); and so
        // were its heartbeats; it stayed connected.
        #expect(report.commandsDroppedWhileStuck > 0)
        #expect(
            report.commandsDroppedWhileStuck + report.commandsQueuedWhileStuck == StuckPresenterScenario.stepsWhileStuck,
            "dropped \(report.commandsDroppedWhileStuck), queued \(report.commandsQueuedWhileStuck)"
        )
        #expect((report.sendsDroppedWhileStuck["HEARTBEAT"] ?? 0) >= 1)
        #expect(Set(report.sendsDroppedWhileStuck.keys).isSubset(of: ["COMMAND", "HEARTBEAT"]))
        // Catching up, the queue may still be too full for a SYNC's OK as well as for a replay's commands: the OK is
        // dropped and counted, and the presenter sends that unanswered SYNC again.
        #expect(Set(report.sendsDropped.keys).isSubset(of: ["COMMAND", "HEARTBEAT", "OK"]))
        #expect(
            (report.sendsDropped["OK"] ?? 0) <= report.recoveryTriggers.count { $0 == "unanswered" },
            "\(report.sendsDropped), \(report.recoveryTriggers)"
        )
        #expect(report.presentersWhileStuck == 2)
        #expect(report.healthAnsweredWhileStuck)

        // The other presenter got every command of its session, in order, without a gap or a second SYNC.
        #expect(report.healthyGaps == 0)
        #expect(report.healthySyncs == 1)
        #expect(report.healthyApplied == Array((report.healthyFirstSeq + 1)...report.healthyFinalSeq))
        #expect(report.healthyFinalSeq == report.healthyDaemonSeq)
        #expect(report.healthyFinalSeq >= report.healthyFirstSeq + UInt64(StuckPresenterScenario.stepsWhileStuck))

        // The slow one caught up: the daemon's seq, each command applied once, the same UI as the daemon's.
        if recovery.stepsWhileCatchingUp == 0 {
            // No step after the queue filled: a heartbeat's seq is what told it, unless the queue took a command
            // after a dropped one (libzmq made room meanwhile), whose gap may show first. (A replay larger than the
            // room left in the queue loses commands in turn: then gaps and further heartbeats make it SYNC again.)
            let possibleTriggers: Set = report.liveCommandsSkippedASeq ? ["heartbeat", "gap"] : ["heartbeat"]
            #expect(
                report.recoveryTriggers.first.map(possibleTriggers.contains) == true,
                "\(report.recoveryTriggers), a live command after a dropped one: \(report.liveCommandsSkippedASeq)"
            )
        }
        #expect(report.stuckFinalSeq == report.stuckDaemonSeq)
        #expect(Set(report.stuckApplied).count == report.stuckApplied.count, "no command applied twice")
        #expect(report.recoveryModes.first == recovery.expectedMode, "\(report.recoveryModes)")
        if recovery.expectedMode == "replay" {
            // Nothing skipped: every command from its first snapshot on was applied, in order.
            #expect(report.stuckApplied == Array((report.stuckFirstSeq + 1)...report.stuckFinalSeq))
        }
        #expect(report.finalSyncSaysCaughtUp)
        #expect(report.modelMatchesDaemon)
    }

    @Test func aBodyOfMaxBodyBytesIsServedAndOneByteMoreIsTooLarge() async throws {
        var daemon = DaemonConfiguration()
        daemon.maxBodyBytes = 4096
        let failures = try await withIPCTickerDaemon(daemon) { endpoints in
            let endpoint = endpoints.control
            let context = try ZMQContext()
            defer { context.shutdown() }
            let peer = try WirePeer(context: context, endpoint: endpoint)
            defer { peer.close() }
            _ = try peer.hello(role: .operator, name: "limits-operator")
            var failures: [String] = []
            for (req, size) in [(UInt64(11), 4096), (12, 4097), (13, 4096)] {
                // `{"req":11,"pad":"xxx…"}` of exactly `size` bytes.
                let prefix = #"{"req":\#(req),"pad":""#
                let body = prefix + String(repeating: "x", count: size - prefix.utf8.count - 2) + #""}"#
                try peer.send(frames: [Array("FLOWD1".utf8), Array("HEALTH".utf8), Array(body.utf8)])
                let reply = try peer.receiveReply()
                switch (size, reply) {
                case (4096, .ok(let ok)) where ok.req == req: break
                case (4097, .error(let error))
                where error.code == .messageTooLarge && error.req == req && error.type == "HEALTH":
                    break
                default: failures.append("a body of \(size) bytes got \(reply)")
                }
            }
            try peer.send(.health(PlainRequest(req: 14)))
            guard case .ok(let health) = try peer.receiveReply(), health.req == 14,
                case .object(let fields) = health.result, case .object(let counters)? = fields["counters"],
                case .object(let errors)? = counters["errors"]
            else {
                return failures + ["no HEALTH after the refusal"]
            }
            if errors != ["messageTooLarge": .int(1)] { failures.append("errors counted: \(errors)") }
            return failures
        }
        #expect(failures == [])
    }
}

extension SlowPresenterTests {
    @Test func theHighWaterMarksAreLibzmqsUnlessTheConfigFileSetsThem() throws {
        let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-limits-test"]
        let defaults = try FlowdOptions.parse([]).settings(environment: environment).server.socketOptions
        #expect(defaults.sendHighWaterMark == nil && defaults.receiveHighWaterMark == nil)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-limits-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = #"{"sockets": {"send_high_water_mark": 200, "receive_high_water_mark": 50}}"#
        _ = FileManager.default.createFile(atPath: path, contents: Data(config.utf8))
        let options = try FlowdOptions.parse(["--config", path]).settings(environment: environment).server.socketOptions
        #expect(options.sendHighWaterMark == 200)
        #expect(options.receiveHighWaterMark == 50)

        let negative = #"{"sockets": {"send_high_water_mark": -1}}"#
        _ = FileManager.default.createFile(atPath: path, contents: Data(negative.utf8))
        #expect(throws: FlowdConfigError.self) {
            try FlowdOptions.parse(["--config", path]).settings(environment: environment)
        }
    }
}
