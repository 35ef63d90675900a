import FlowClient
import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import Testing

/// The real daemon (``DaemonServer`` with a journal) and the real ``StepperClient`` over `ipc://`: a step emitted
/// while the daemon is down is delivered once when a daemon that recovered the state comes back, the client keeps its
/// attachment (same daemon ID), and the recovered session has the step exactly once.
@Suite(.timeLimit(.minutes(2)))
struct StepAcrossRestartTests {
    private static let quiet = Logger(label: "StepAcrossRestartTests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A daemon on `directory`'s endpoints and journal, running until `stop()`.
    private struct RunningDaemon {
        let server: DaemonServer
        let task: Task<Void, any Error>

        init(directory: String, journal: Bool, compactBytes: Int = 8 << 20) async throws {
            var daemon = DaemonConfiguration()
            // Not shorter: the test process runs hundreds of tests at once on a few cores, and a client starved for
            // three of its heartbeats is forgotten by the daemon, which fails the operator's query in flight.
            daemon.heartbeatMs = 500
            server = DaemonServer(
                application: TickerApplication(),
                configuration: DaemonServer.Configuration(
                    controlEndpoint: "ipc://\(directory)/control.sock", eventsEndpoint: "ipc://\(directory)/events.sock",
                    daemon: daemon,
                    journal: journal
                        ? JournalConfiguration(directory: "\(directory)/state", compactBytes: compactBytes) : nil
                ),
                logger: StepAcrossRestartTests.quiet
            )
            let server = self.server
            task = Task { try await server.run() }
            _ = try await server.waitUntilReady()
        }

        func stop() async throws {
            server.stop()
            try await task.value
        }
    }

    private func clientConfiguration(_ directory: String) -> FlowClientConfiguration {
        FlowClientConfiguration(
            endpoints: FlowdEndpoints(control: "ipc://\(directory)/control.sock", events: "ipc://\(directory)/events.sock"),
            heartbeatInterval: .milliseconds(500), reconnectDelay: .milliseconds(20),
            maximumReconnectDelay: .milliseconds(200), logger: Self.quiet
        )
    }

    /// The `ticker` stepper client of `directory`'s daemon, running in the returned task, once its `ATTACH` came.
    private func startTicker(
        _ directory: String
    ) async throws -> (StepperClient, Task<Void, any Error>, RemoteAttachment) {
        let stepper = StepperClient(name: "ticker", serves: ["ticker"], configuration: clientConfiguration(directory))
        let task = Task { try await stepper.run() }
        var events = stepper.events.makeAsyncIterator()
        guard case .attached(let attachment)? = await events.next() else {
            task.cancel()
            throw NoAttachment()
        }
        return (stepper, task, attachment)
    }

    private struct NoAttachment: Error, CustomStringConvertible {
        var description: String { "no ATTACH for the ticker" }
    }

    private func seq(_ directory: String) async throws -> UInt64 {
        let sessions = try await OperatorClient.withConnection(
            name: "ops", configuration: clientConfiguration(directory)
        ) { try await $0.sessions() }
        return try #require(sessions.first { $0.id == "default" }).seq
    }

    private static func tick(_ n: Int) -> Step { Step("tick", payload: ["n": .int(n)]) }

    @Test func aStepEmittedWhileTheDaemonIsDownIsDeliveredOnceWhenItComesBackWithItsState() async throws {
        let directory = "/tmp/fsr-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var daemon = try await RunningDaemon(directory: directory, journal: true)
        let (stepper, clientTask, attachment) = try await startTicker(directory)
        defer { clientTask.cancel() }
        #expect(try await stepper.emit(Self.tick(1), for: attachment) == .accepted)
        let before = try await seq(directory)

        // The daemon goes away; the step is emitted meanwhile and waits in the client.
        try await daemon.stop()
        let pending = Task { try await stepper.emit(Self.tick(2), for: attachment) }
        try await Task.sleep(for: .milliseconds(300))

        daemon = try await RunningDaemon(directory: directory, journal: true)
        #expect(try await pending.value == .accepted)
        #expect(try await seq(directory) == before + 1, "applied once")
        #expect(stepper.attachments == [attachment], "the same daemon ID: the attachment stays")

        // And the state with that step survives the next restart too.
        try await daemon.stop()
        daemon = try await RunningDaemon(directory: directory, journal: true)
        #expect(try await seq(directory) == before + 1)
        #expect(try await stepper.emit(Self.tick(3), for: attachment) == .accepted)
        #expect(try await seq(directory) == before + 2)
        try await daemon.stop()
    }

    @Test func aDaemonThatCompactedItsJournalIntoSnapshotsRecoversTheSameState() async throws {
        let directory = "/tmp/fsr-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // 4 KiB: a few dozen steps fill the journal; snapshots then double (4, 8, 16 KiB…).
        var daemon = try await RunningDaemon(directory: directory, journal: true, compactBytes: 4096)
        let (stepper, clientTask, attachment) = try await startTicker(directory)
        defer { clientTask.cancel() }
        for n in 1...300 { #expect(try await stepper.emit(Self.tick(n), for: attachment) == .accepted) }
        let seqBefore = try await seq(directory)
        let treeBefore = try await tree(directory)
        try await daemon.stop()

        let files = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/state").sorted()
        #expect(files.contains("snapshot"), "\(files)")
        #expect(!files.contains("journal-1"), "compacted at least once: \(files)")

        daemon = try await RunningDaemon(directory: directory, journal: true, compactBytes: 4096)
        #expect(try await seq(directory) == seqBefore)
        #expect(try await tree(directory) == treeBefore)
        #expect(try await stepper.emit(Self.tick(301), for: attachment) == .accepted)
        #expect(try await seq(directory) == seqBefore + 1)
        try await daemon.stop()
    }

    private func tree(_ directory: String) async throws -> String {
        try await OperatorClient.withConnection(name: "ops", configuration: clientConfiguration(directory)) {
            try await $0.tree(session: "default").text
        }
    }
}
