package import CoreMetrics
package import FlowWire

/// The daemon's metrics, recorded through swift-metrics objects made once from the factory it is given.
///
/// It turns ``DaemonCounters`` (what ``DaemonCore`` counts anyway) into counters by adding their increases since the
/// last reading, and sets the gauges from the core's peers and sessions. The daemon's I/O thread calls it after each
/// batch of messages (the counters) and a few times a second (the gauges); nothing is made or looked up per message.
/// A labelled counter (`reason`, `code`) is made the first time its label value shows up, then kept.
///
/// The names are ``MetricName``'s; README's Metrics table says what each counts and its labels.
///
/// A value type the I/O thread owns; its metric objects are `Sendable` and thread-safe.
package struct DaemonMetrics: Sendable {
    private let factory: any MetricsFactory
    /// The unlabelled totals, one counter each.
    private var totals: TotalCounters<DaemonCounters>
    private var stepsDropped: [String: Counter] = [:]
    private var errors: [String: Counter] = [:]
    private var sendsDropped: [String: Counter] = [:]
    private var adapts: [String: Counter] = [:]
    private var adaptAnswersDropped: [String: Counter] = [:]
    /// The application's file read again on SIGHUP, by outcome (`taken`, `refused`); only for a file application.
    private var appReloads: [String: Counter] = [:]
    /// `ipc://` socket files bound again after they were removed, by socket (`control`, `events`).
    private var socketFilesRebound: [String: Counter] = [:]
    /// Restart graces ended, by outcome (`allBack`, `timedOut`).
    private var restartGracesEnded: [String: Counter] = [:]
    /// Made when a subscriber's events queue is first found full.
    private var eventQueueOverflows: Counter?
    /// Made when the socket files are first moved aside near the descriptor limit.
    private var socketFilesWithdrawn: Counter?
    /// Made when a connection is first closed at the descriptor limit.
    private var connectionsClosedAtLimit: Counter?
    /// Made when the daemon first counts ZAP refusals (``DaemonCounters/authDenied`` is `nil` without CURVE).
    private var authDenied: Counter?
    /// Made when the daemon first forgets a peer for a new allow-list (``DaemonCounters/peersRevoked``).
    private var peersRevoked: Counter?
    private let peers: [PeerRole: Gauge]
    private let sessions: Gauge
    private let sessionsPending: Gauge
    private let sessionsUnrestorable: Gauge
    private let sessionsHibernated: Gauge
    private let restartGraceAwaited: Gauge
    /// By quantity (``SessionUsage/quantities``' names): the largest over the made sessions, and the bound.
    private let sessionUsageMax: [String: Gauge]
    private let sessionBound: [String: Gauge]
    /// The counters as last recorded.
    private var last = DaemonCounters()

    /// Makes the metric objects from `factory` (not the global `MetricsSystem`): the process decides where they go.
    package init(factory: any MetricsFactory) {
        self.factory = factory
        totals = TotalCounters(
            [
                MetricName.stepsAccepted: \.stepsAccepted,
                MetricName.stepsDuplicate: \.stepsDuplicate,
                MetricName.commandsSent: \.commandsSent,
                MetricName.commandsAcked: \.commandsAcked,
                MetricName.navigations: \.navigations,
                MetricName.messagesIn: \.messagesIn,
                MetricName.messagesOut: \.messagesOut,
            ], factory: factory)
        peers = Dictionary(
            uniqueKeysWithValues: PeerRole.allCases.map {
                ($0, Gauge(label: MetricName.peers, dimensions: [("role", $0.rawValue)], factory: factory))
            }
        )
        sessions = Gauge(label: MetricName.sessions, factory: factory)
        sessionsPending = Gauge(label: MetricName.sessionsPending, factory: factory)
        sessionsUnrestorable = Gauge(label: MetricName.sessionsUnrestorable, factory: factory)
        sessionsHibernated = Gauge(label: MetricName.sessionsHibernated, factory: factory)
        restartGraceAwaited = Gauge(label: MetricName.restartGraceAwaited, factory: factory)
        let quantities = SessionUsage.zero.quantities.map(\.name)
        func byQuantity(_ label: String) -> [String: Gauge] {
            Dictionary(
                uniqueKeysWithValues: quantities.map {
                    ($0, Gauge(label: label, dimensions: [("quantity", $0)], factory: factory))
                })
        }
        sessionUsageMax = byQuantity(MetricName.sessionUsageMax)
        sessionBound = byQuantity(MetricName.sessionBound)
    }

    /// Adds what `counters` counted since the last call to the counters.
    ///
    /// Cheap when little changed: a few integer comparisons, and the three small dictionaries are walked only when
    /// they differ.
    package mutating func record(_ counters: DaemonCounters) {
        totals.record(counters)
        addLabelled(counters.stepsDropped, last.stepsDropped, to: &stepsDropped, MetricName.stepsDropped, "reason")
        addLabelled(counters.errors, last.errors, to: &errors, MetricName.errors, "code")
        addLabelled(counters.sendsDropped, last.sendsDropped, to: &sendsDropped, MetricName.sendsDropped, "type")
        addLabelled(counters.adapts, last.adapts, to: &adapts, MetricName.adapts, "outcome")
        addLabelled(
            counters.adaptAnswersDropped, last.adaptAnswersDropped, to: &adaptAnswersDropped,
            MetricName.adaptAnswersDropped, "reason"
        )
        addLabelled(Self.appReloads(counters), Self.appReloads(last), to: &appReloads, MetricName.appReloads, "outcome")
        addLabelled(
            counters.socketFilesRebound, last.socketFilesRebound, to: &socketFilesRebound,
            MetricName.socketFilesRebound, "socket")
        addLabelled(
            counters.restartGracesEnded, last.restartGracesEnded, to: &restartGracesEnded,
            MetricName.restartGracesEnded, "outcome")
        addMadeOnFirstUse(
            counters.eventQueueOverflows, last.eventQueueOverflows, to: &eventQueueOverflows,
            MetricName.eventQueueOverflows)
        addMadeOnFirstUse(
            counters.socketFilesWithdrawn, last.socketFilesWithdrawn, to: &socketFilesWithdrawn,
            MetricName.socketFilesWithdrawn)
        addMadeOnFirstUse(
            counters.connectionsClosedAtLimit, last.connectionsClosedAtLimit, to: &connectionsClosedAtLimit,
            MetricName.connectionsClosedAtLimit)
        addMadeOnFirstUse(counters.authDenied, last.authDenied, to: &authDenied, MetricName.authDenied)
        addMadeOnFirstUse(counters.peersRevoked, last.peersRevoked, to: &peersRevoked, MetricName.peersRevoked)
        last = counters
    }

    /// Sets the gauges: connected peers by role (every role, 0 when none), sessions held and, of those, pending,
    /// unrestorable and hibernated, and the stepper processes a restart grace awaits.
    package func record(
        peers counts: [PeerRole: Int], sessions count: Int, pending: Int = 0, unrestorable: Int = 0,
        hibernated: Int = 0, restartGraceAwaited awaited: Int = 0
    ) {
        for (role, gauge) in peers { gauge.record(counts[role] ?? 0) }
        sessions.record(count)
        sessionsPending.record(pending)
        sessionsUnrestorable.record(unrestorable)
        sessionsHibernated.record(hibernated)
        restartGraceAwaited.record(awaited)
    }

    /// Sets the gauges from `core`'s peers and sessions: the one list of them, so that no caller leaves one at its
    /// default (the I/O loop's refresh set `flowd_sessions_hibernated` to 0 every 100 ms).
    package func recordGauges(of core: DaemonCore) {
        record(
            peers: core.peerCounts, sessions: core.sessionCount, pending: core.pendingSessionCount,
            unrestorable: core.unrestorableSessionCount, hibernated: core.hibernatedSessionCount,
            restartGraceAwaited: core.restartGraceAwaited)
    }

    /// Sets the session usage gauges from `core`: the largest of each figure over its made sessions (a walk over them:
    /// the I/O loop calls it once a second, not with the other gauges) and the bounds.
    package func recordSessionUsage(of core: DaemonCore) {
        for (name, value) in core.sessionUsageMax.quantities { sessionUsageMax[name]?.record(value) }
        for (name, value) in core.sessionBounds.quantities { sessionBound[name]?.record(value) }
    }

    /// Records everything about `core`: its counters, its peers and sessions, and its sessions' usage.
    package mutating func record(_ core: DaemonCore) {
        record(core.counters)
        recordGauges(of: core)
        recordSessionUsage(of: core)
    }

    /// Adds the increase of a total the core counts only in some setups (`nil` otherwise) to `counter`, made the
    /// first time there is one.
    private func addMadeOnFirstUse(_ now: Int?, _ before: Int?, to counter: inout Counter?, _ name: String) {
        guard let now, now > before ?? 0 else { return }
        let made = counter ?? Counter(label: name, factory: factory)
        made.increment(total: now, before: before ?? 0)
        counter = made
    }

    private static func appReloads(_ counters: DaemonCounters) -> [String: Int] {
        guard let taken = counters.appReloads, let refused = counters.appReloadsRefused else { return [:] }
        return ["taken": taken, "refused": refused]
    }

    /// Adds each label value's increase since `before` to its counter (made the first time the value shows up).
    private func addLabelled(
        _ now: [String: Int], _ before: [String: Int], to cache: inout [String: Counter], _ name: String,
        _ label: String
    ) {
        guard now != before else { return }
        for (value, count) in now {
            let previous = before[value] ?? 0
            guard count > previous else { continue }
            labelled(&cache, name, label, value).increment(by: count - previous)
        }
    }

    private func labelled(
        _ cache: inout [String: Counter], _ name: String, _ label: String, _ value: String
    ) -> Counter {
        if let counter = cache[value] { return counter }
        let counter = Counter(label: name, dimensions: [(label, value)], factory: factory)
        cache[value] = counter
        return counter
    }
}
