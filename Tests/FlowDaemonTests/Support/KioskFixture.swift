import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows

/// A daemon running ``TestApplication``, whose every session has a `home` attachment (the root flow's remote
/// stepper), and an operator that creates sessions: each one more attachment of the kind `home`. Journaling, so that
/// it restarts (``restart()``).
struct KioskFixture {
    let daemon: EmbeddedDaemon
    private let flowctl: PeerAddress
    private var created = 0

    init(configuration: DaemonConfiguration = DaemonConfiguration()) {
        daemon = EmbeddedDaemon(application: TestApplication(), configuration: configuration, journaling: true)
        flowctl = daemon.newPeerAddress()
        operatorHello()
    }

    /// The operator says `HELLO` (again, after a restart).
    func operatorHello() {
        daemon.receive(
            .hello(Hello(req: 1, role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 60_000)),
            from: flowctl)
    }

    /// `count` new sessions, so `count` new `home` attachments.
    mutating func createSessions(_ count: Int) {
        for _ in 0..<count {
            created += 1
            daemon.receive(
                .createSession(SessionRequest(req: UInt64(1 + created), session: "kiosk-\(created)")), from: flowctl)
        }
    }

    func serving(_ name: String) -> FakeStepper { daemon.connectStepper(name: name, kinds: ["home"]) }

    /// flowd killed and started again on its state, and the operator back.
    func restart() throws {
        try daemon.restart()
        operatorHello()
    }
}
