import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Prometheus
import TestFlows
import Testing

/// The Prometheus text of `registry` as `series → value` (`name{labels}` → the value as printed), and the `# TYPE`
/// lines as `name → type`.
private func scrape(_ registry: PrometheusCollectorRegistry) -> (values: [String: String], types: [String: String]) {
    var values: [String: String] = [:]
    var types: [String: String] = [:]
    for line in registry.emitToString().split(separator: "\n") {
        let parts = line.split(separator: " ")
        if line.hasPrefix("# TYPE "), parts.count == 4 {
            types[String(parts[2])] = String(parts[3])
        } else if !line.hasPrefix("#"), parts.count == 2 {
            #expect(values[String(parts[0])] == nil, "series \(parts[0]) printed twice")
            values[String(parts[0])] = String(parts[1])
        }
    }
    return (values, types)
}

/// A scripted run over the in-memory transport: a step dropped (nothing visible yet), a presenter, a step accepted
/// and its command acknowledged, an unknown step, a stranger's message, an operator, a stepper leaving.
private func scriptedRun(recordingInto metrics: inout DaemonMetrics, midway: Bool) -> DaemonHarness {
    let h = DaemonHarness(application: TestApplication(stepNames: testStepNames))
    h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"])
    // No presenter yet: `home` is not visible, the step is dropped.
    h.step(Peers.movies, Step("openDetail", payload: 6), attachment: 2, req: 2)
    if midway { metrics.record(h.core) }
    h.presenter(Peers.tui, name: "tui")
    h.report(Peers.tui, [("app", .visible), ("home", .visible)])
    h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 3)
    h.receive(.ack(Ack(session: "default", seq: 3)), from: Peers.tui)
    h.step(Peers.movies, Step("noSuchStep"), attachment: 2, req: 4)
    h.receive(.heartbeat(Heartbeat(sessions: [:])), from: Peers.stranger)
    h.hello(Peers.flowctl, .operator, name: "flowctl")
    h.hello(Peers.moviesB, .stepper, name: "other", serves: [])
    h.receive(.bye, from: Peers.moviesB)
    metrics.record(h.core)
    return h
}

/// What the gauge tests start from: metrics recording into a registry of their own, and a harness whose configuration
/// `configure` sets.
private struct GaugeRun {
    let registry = PrometheusCollectorRegistry()
    var metrics: DaemonMetrics
    let h: DaemonHarness

    init(_ configure: (inout DaemonConfiguration) -> Void = { _ in }) {
        metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var configuration = DaemonConfiguration()
        configure(&configuration)
        h = DaemonHarness(configuration: configuration)
    }

    /// The registry's series as printed.
    var values: [String: String] { scrape(registry).values }

    /// A reading of every figure, as the I/O loop's once-a-second refresh takes it.
    mutating func record() { metrics.record(h.core) }
}

struct MetricsTests {
    private static let expected: [String: String] = [
        "flowd_steps_accepted_total": "1",
        "flowd_steps_duplicate_total": "0",
        "flowd_steps_dropped_total{reason=\"notVisible\"}": "1",
        "flowd_commands_sent_total": "1",
        "flowd_commands_acked_total": "1",
        // `start` when the default session was made, then `openDetail(7)`.
        "flowd_navigations_total": "2",
        "flowd_errors_total{code=\"unknownStep\"}": "1",
        "flowd_errors_total{code=\"notWelcome\"}": "1",
        "flowd_peers{role=\"stepper\"}": "1.0",
        "flowd_peers{role=\"presenter\"}": "1.0",
        "flowd_peers{role=\"operator\"}": "1.0",
        "flowd_sessions": "1.0", "flowd_sessions_pending": "0.0", "flowd_sessions_unrestorable": "0.0",
        "flowd_sessions_hibernated": "0.0", "flowd_restart_grace_awaited": "0.0",
        // `app`, `home`, `detail.7`; `start` and `openDetail(7)`'s push (the dropped step made no command).
        "flowd_session_usage_max{quantity=\"screens\"}": "3.0",
        "flowd_session_usage_max{quantity=\"ui_bytes\"}": "181.0",
        "flowd_session_usage_max{quantity=\"attachments\"}": "3.0",
        "flowd_session_usage_max{quantity=\"outbox_commands\"}": "3.0",
        "flowd_session_usage_max{quantity=\"outbox_bytes\"}": "373.0",
        "flowd_session_bound{quantity=\"screens\"}": "20000.0",
        "flowd_session_bound{quantity=\"ui_bytes\"}": "67108864.0",
        "flowd_session_bound{quantity=\"attachments\"}": "20000.0",
        "flowd_session_bound{quantity=\"outbox_commands\"}": "1024.0",
        "flowd_session_bound{quantity=\"outbox_bytes\"}": "1048576.0",
    ]

    @Test func aScriptedRunGivesTheseSeriesAndValues() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let h = scriptedRun(recordingInto: &metrics, midway: false)
        let (values, types) = scrape(registry)
        for (series, value) in Self.expected {
            #expect(values[series] == value, "\(series)")
        }
        // Messages both ways, as the core counted them.
        #expect(values["flowd_messages_in_total"] == String(h.core.counters.messagesIn))
        #expect(values["flowd_messages_out_total"] == String(h.core.counters.messagesOut))
        #expect(h.core.counters.messagesIn == 12)
        // Nothing else: every series is one of the above.
        #expect(
            Set(values.keys) == Set(Self.expected.keys).union(["flowd_messages_in_total", "flowd_messages_out_total"]))
        #expect(
            types == [
                "flowd_steps_accepted_total": "counter", "flowd_steps_dropped_total": "counter",
                "flowd_steps_duplicate_total": "counter",
                "flowd_commands_sent_total": "counter", "flowd_commands_acked_total": "counter",
                "flowd_navigations_total": "counter", "flowd_errors_total": "counter",
                "flowd_messages_in_total": "counter", "flowd_messages_out_total": "counter",
                "flowd_peers": "gauge", "flowd_sessions": "gauge", "flowd_sessions_pending": "gauge",
                "flowd_sessions_unrestorable": "gauge", "flowd_sessions_hibernated": "gauge",
                "flowd_session_usage_max": "gauge", "flowd_session_bound": "gauge",
                "flowd_restart_grace_awaited": "gauge",
            ]
        )
    }

    @Test func recordingAgainAddsOnlyWhatChanged() {
        // Recorded midway and at the end: the counters hold the totals, not the sums of the two readings.
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let h = scriptedRun(recordingInto: &metrics, midway: true)
        let (values, _) = scrape(registry)
        for (series, value) in Self.expected {
            #expect(values[series] == value, "\(series)")
        }
        #expect(values["flowd_messages_in_total"] == String(h.core.counters.messagesIn))
        // And a reading with nothing new changes nothing.
        metrics.record(h.core)
        #expect(scrape(registry).values == values)
    }

    @Test func gaugesFollowPeersLeavingAndSessionsCreated() {
        var run = GaugeRun()
        run.record()
        #expect(run.values["flowd_peers{role=\"presenter\"}"] == "0.0")
        #expect(run.values["flowd_sessions"] == "1.0")
        run.h.presenter(Peers.tui, name: "tui", session: "kiosk", create: true)
        run.record()
        #expect(run.values["flowd_peers{role=\"presenter\"}"] == "1.0")
        #expect(run.values["flowd_sessions"] == "2.0")
        run.h.receive(.bye, from: Peers.tui)
        run.record()
        #expect(run.values["flowd_peers{role=\"presenter\"}"] == "0.0")
        #expect(run.values["flowd_sessions"] == "2.0")
    }

    @Test func theSessionUsageGaugesAreTheLargestOfEachFigureAndTheBounds() {
        var run = GaugeRun { $0.maxSessionUIBytes = 4096 }
        let h = run.h
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.receive(.createSession(SessionRequest(req: 2, session: "kiosk")), from: Peers.flowctl)
        for movie in 1...3 {
            h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), session: "kiosk", req: UInt64(10 + movie))
        }
        run.record()
        let values = run.values
        let largest = h.core.sessionUsageMax
        #expect(largest.screens == 5 && largest.uiBytes == 315 && largest.attachments == 5)
        for (name, value) in largest.quantities {
            #expect(values["flowd_session_usage_max{quantity=\"\(name)\"}"] == "\(value).0", "\(name)")
        }
        #expect(values["flowd_session_bound{quantity=\"ui_bytes\"}"] == "4096.0")
        #expect(values["flowd_session_bound{quantity=\"outbox_commands\"}"] == "1024.0")
        // The 100 ms refresh leaves them; the once-a-second one sets them.
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 4), session: "kiosk", req: 20)
        run.metrics.recordGauges(of: h.core)
        #expect(run.values["flowd_session_usage_max{quantity=\"screens\"}"] == "5.0")
        run.metrics.recordSessionUsage(of: h.core)
        #expect(run.values["flowd_session_usage_max{quantity=\"screens\"}"] == "6.0")
    }

    @Test func theHibernatedGaugeFollowsSessionsHibernatingAndMadeAgain() {
        var run = GaugeRun { $0.hibernateAfterS = 30 }
        let h = run.h
        run.record()
        #expect(run.values["flowd_sessions_hibernated"] == "0.0")
        h.tick(at: 31_000)
        run.record()
        #expect(h.core.hibernatedSessionCount == 1)
        #expect(run.values["flowd_sessions_hibernated"] == "1.0")
        #expect(run.values["flowd_sessions"] == "1.0", "a hibernated session is still held")
        // The I/O loop's refresh every 100 ms sets the gauges alone; it set this one to 0.
        run.metrics.recordGauges(of: h.core)
        #expect(run.values["flowd_sessions_hibernated"] == "1.0")
        h.presenter(Peers.tui, name: "tui")  // its SYNC names the default session: made again
        run.record()
        #expect(h.core.hibernatedSessionCount == 0)
        #expect(run.values["flowd_sessions_hibernated"] == "0.0")
    }

    /// docs/PROTOCOL.md §5.1: the gauge counts the last run's stepper processes not back yet while a grace runs; the
    /// counter, graces ended by every process back and by `restart_grace_ms`.
    @Test(arguments: [false, true])
    func aRestartGraceShowsTheProcessesAwaitedAndHowItEnded(timedOut: Bool) throws {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var f = KioskFixture(graceMs: 3000)
        let a = f.serving("a-login")
        let b = f.serving("b-login")
        let c = f.serving("c-login")
        f.createSessions(8)
        metrics.record(f.daemon.core)
        #expect(scrape(registry).values["flowd_restart_grace_awaited"] == "0.0", "no grace before a restart")
        try f.restart()
        metrics.record(f.daemon.core)
        #expect(scrape(registry).values["flowd_restart_grace_awaited"] == "3.0")
        a.restart(instance: "a-2")
        b.restart(instance: "b-2")
        metrics.record(f.daemon.core)
        #expect(scrape(registry).values["flowd_restart_grace_awaited"] == "1.0", "c is awaited")
        #expect(!scrape(registry).values.keys.contains { $0.hasPrefix(MetricName.restartGracesEnded) })
        if timedOut {
            f.daemon.passTime(.milliseconds(3000))
        } else {
            c.restart(instance: "c-2")
        }
        metrics.record(f.daemon.core)
        let (values, types) = scrape(registry)
        #expect(values["flowd_restart_grace_awaited"] == "0.0")
        let outcome = timedOut ? "timedOut" : "allBack"
        #expect(values.filter { $0.key.hasPrefix(MetricName.restartGracesEnded) } == [
            "flowd_restart_graces_ended_total{outcome=\"\(outcome)\"}": "1"
        ])
        #expect(types["flowd_restart_graces_ended_total"] == "counter")
        guard case .object(let counters) = f.daemon.core.counters.json(hibernatedNow: 0) else {
            Issue.record("HEALTH's counters are an object")
            return
        }
        #expect(counters["restart_graces_ended"] == [outcome: 1], "and in HEALTH's counters")
    }

    @Test func refusedConnectionsAreCountedOnlyWithCURVE() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var counters = DaemonCounters()
        metrics.record(counters)
        // Without CURVE there is nothing to count: no series.
        #expect(scrape(registry).values["flowd_auth_denied_total"] == nil)
        counters.authDenied = 2
        metrics.record(counters)
        counters.authDenied = 5
        metrics.record(counters)
        #expect(scrape(registry).values["flowd_auth_denied_total"] == "5")
        #expect(scrape(registry).types["flowd_auth_denied_total"] == "counter")
        // Peers forgotten for a new allow-list (SIGHUP), likewise only with CURVE.
        #expect(scrape(registry).values["flowd_peers_revoked_total"] == nil)
        counters.peersRevoked = 0
        metrics.record(counters)
        counters.peersRevoked = 3
        metrics.record(counters)
        #expect(scrape(registry).values["flowd_peers_revoked_total"] == "3")
        #expect(scrape(registry).types["flowd_peers_revoked_total"] == "counter")
    }

    @Test func reloadsOfTheApplicationsFileAreCountedByOutcomeOnlyForAFile() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var counters = DaemonCounters()
        metrics.record(counters)
        #expect(!scrape(registry).values.keys.contains { $0.hasPrefix("flowd_app_reloads_total") })
        counters.countAppReloads()
        counters.appReloads = 2
        counters.appReloadsRefused = 1
        metrics.record(counters)
        #expect(scrape(registry).values[#"flowd_app_reloads_total{outcome="taken"}"#] == "2")
        #expect(scrape(registry).values[#"flowd_app_reloads_total{outcome="refused"}"#] == "1")
        #expect(scrape(registry).types["flowd_app_reloads_total"] == "counter")
    }

    @Test func sendsDroppedForAFullPeerQueueAreCountedByMessageType() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var counters = DaemonCounters()
        metrics.record(counters)
        // Nothing dropped yet: no series.
        #expect(!scrape(registry).values.keys.contains { $0.hasPrefix(MetricName.sendsDropped) })
        counters.sendsDropped = ["COMMAND": 3, "HEARTBEAT": 1]
        metrics.record(counters)
        counters.sendsDropped = ["COMMAND": 5, "HEARTBEAT": 1, "OK": 2]
        metrics.record(counters)
        let (values, types) = scrape(registry)
        #expect(values["flowd_sends_dropped_total{type=\"COMMAND\"}"] == "5")
        #expect(values["flowd_sends_dropped_total{type=\"HEARTBEAT\"}"] == "1")
        #expect(values["flowd_sends_dropped_total{type=\"OK\"}"] == "2")
        #expect(types["flowd_sends_dropped_total"] == "counter")
    }

    @Test func eventQueueOverflowsAreCountedOnceThereIsOne() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var counters = DaemonCounters()
        let health = { (counters: DaemonCounters) -> [String: JSONValue] in
            if case .object(let fields) = counters.json(hibernatedNow: 0) { fields } else { [:] }
        }
        metrics.record(counters)
        #expect(scrape(registry).values[MetricName.eventQueueOverflows] == nil)
        #expect(health(counters)["event_queue_overflows"] == nil)
        counters.eventQueueOverflows = 3
        metrics.record(counters)
        counters.eventQueueOverflows = 7
        metrics.record(counters)
        let (values, types) = scrape(registry)
        #expect(values[MetricName.eventQueueOverflows] == "7")
        #expect(types[MetricName.eventQueueOverflows] == "counter")
        #expect(health(counters)["event_queue_overflows"] == 7)
    }

    @Test func adaptsAskedOfStepperKindsAreCountedByOutcomeAndDroppedAnswersByReason() {
        let registry = PrometheusCollectorRegistry()
        var metrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var counters = DaemonCounters()
        metrics.record(counters)
        #expect(!scrape(registry).values.keys.contains { $0.hasPrefix("flowd_adapt") })
        counters.adapts = ["allow": 2, "replace": 1]
        metrics.record(counters)
        counters.adapts = ["allow": 3, "replace": 1, "timedOut": 1]
        counters.adaptAnswersDropped = ["unknownRequest": 2]
        metrics.record(counters)
        let (values, types) = scrape(registry)
        #expect(values["flowd_adapts_total{outcome=\"allow\"}"] == "3")
        #expect(values["flowd_adapts_total{outcome=\"replace\"}"] == "1")
        #expect(values["flowd_adapts_total{outcome=\"timedOut\"}"] == "1")
        #expect(values["flowd_adapt_answers_dropped_total{reason=\"unknownRequest\"}"] == "2")
        #expect(types["flowd_adapts_total"] == "counter")
    }

    @Test func twoDaemonsInOneProcessKeepTheirOwnRegistries() {
        // No global state: each factory's registry sees only its own daemon.
        let first = PrometheusCollectorRegistry()
        let second = PrometheusCollectorRegistry()
        var firstMetrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: first))
        var secondMetrics = DaemonMetrics(factory: PrometheusMetricsFactory(registry: second))
        _ = scriptedRun(recordingInto: &firstMetrics, midway: false)
        secondMetrics.record(DaemonHarness().core)
        #expect(scrape(first).values["flowd_steps_accepted_total"] == "1")
        #expect(scrape(second).values["flowd_steps_accepted_total"] == "0")
        #expect(scrape(second).values["flowd_steps_dropped_total{reason=\"notVisible\"}"] == nil)
    }
}
