package import FlowCore
internal import FlowWire

/// What the daemon counted since it started (`flowctl health`).
package struct DaemonCounters: Sendable, Hashable {
    package var messagesIn = 0
    package var messagesOut = 0
    /// Refused messages, by error code.
    package var errors: [String: Int] = [:]
    package var stepsAccepted = 0
    /// STEPs sent again that the daemon had applied already: answered with the first verdict, not applied again.
    package var stepsDuplicate = 0
    /// Dropped steps, by reason.
    package var stepsDropped: [String: Int] = [:]
    package var navigations = 0
    package var commandsSequenced = 0
    package var commandsSent = 0
    package var commandsAcked = 0
    package var reports = 0
    package var userActions = 0
    package var peersLost = 0
    /// Sessions ended, by reason: `operator` (`END_SESSION`) or `idle` (expired).
    package var sessionsEnded: [String: Int] = [:]
    /// Messages not sent because the peer's queue was full (its high-water mark), by message type: the peer is
    /// slow or stuck, and resyncs from the heartbeat's `seq` (docs/LIMITS.md).
    package var sendsDropped: [String: Int] = [:]
    /// Events published that found a subscriber's events queue full (its high-water mark), subscribers found full by
    /// the same event once: such a subscriber misses events until it has read part of its queue; in ``json`` once there
    /// is one (docs/LIMITS.md).
    package var eventQueueOverflows = 0
    /// Sessions a compaction could not save as data and kept as history in the snapshot, by reason
    /// (`notRestorable`, `notAtRest`); in ``json`` once there is one.
    package var sessionsKeptAsHistory: [String: Int] = [:]
    /// Sessions hibernated (kept as their saved state), and made again from hibernation; in ``json(hibernatedNow:)``
    /// once one hibernated, with the number hibernated now (the session table's count, given by the report).
    package var sessionsHibernated = 0
    package var sessionsWoken = 0
    /// Sessions found due to hibernate that could not, by reason (`adaptPending`, `deepLinkWaiting`, `localStepper`,
    /// `visible`, `notRestorable`, `notAtRest`, ...); in ``json`` once there is one.
    package var sessionsNotHibernated: [String: Int] = [:]
    /// Connections the ZAP handler refused (a key not on the allow-list, or not allowed on that socket); `nil` when
    /// the daemon runs without CURVE (then it is not in ``json``).
    package var authDenied: Int?
    /// Adaptations asked of stepper kinds once settled, by outcome: `allow`, `replace`, `refuse`, `timedOut`, and
    /// `badReplacement` (a `replace` whose step was dropped, which fails the adaptation); in ``json`` once there is one.
    package var adapts: [String: Int] = [:]
    /// `ADAPTED` answers dropped, by reason: `unknownRequest`, `unknownStep`, `invalidPayload`, `forbidden`; in ``json`` once there is
    /// one.
    package var adaptAnswersDropped: [String: Int] = [:]
    /// Peers forgotten because a new allow-list dropped or changed their key's entry (SIGHUP); `nil` without CURVE.
    package var peersRevoked: Int?
    /// New versions of the application's file taken (SIGHUP), and files refused (unreadable, not valid, or not
    /// kept in the state directory); `nil` when the application is code.
    package var appReloads: Int?
    package var appReloadsRefused: Int?
    /// `ipc://` socket files found removed while the daemon ran and bound again, by socket (`control`, `events`); in
    /// ``json`` once there is one (docs/LIMITS.md).
    package var socketFilesRebound: [String: Int] = [:]
    /// Times the `ipc://` socket files were moved aside near the file descriptor limit (``ConnectionBudget``); in
    /// ``json`` once there is one (docs/LIMITS.md).
    package var socketFilesWithdrawn = 0
    /// Connections closed as they came because no file descriptor was left (``AcceptGuard``); in ``json`` once there
    /// is one (docs/LIMITS.md).
    package var connectionsClosedAtLimit = 0
    /// Restart graces ended (docs/PROTOCOL.md §5.1), by how: `allBack` (every awaited stepper process said `HELLO`)
    /// or `timedOut` (`daemon.restart_grace_ms` passed first); in ``json`` once there is one.
    package var restartGracesEnded: [String: Int] = [:]

    package init() {}

    /// Counts reloads of the application's file (from zero) in ``json``.
    package mutating func countAppReloads() {
        appReloads = appReloads ?? 0
        appReloadsRefused = appReloadsRefused ?? 0
    }

    /// The counters as JSON for `HEALTH`, with `hibernatedNow` sessions hibernated now.
    package func json(hibernatedNow: Int) -> JSONValue {
        var fields: [String: JSONValue] = [
            "messages_in": .int(messagesIn),
            "messages_out": .int(messagesOut),
            "errors": .object(errors.mapValues { .int($0) }),
            "steps_accepted": .int(stepsAccepted),
            "steps_duplicate": .int(stepsDuplicate),
            "steps_dropped": .object(stepsDropped.mapValues { .int($0) }),
            "navigations": .int(navigations),
            "commands_sequenced": .int(commandsSequenced),
            "commands_sent": .int(commandsSent),
            "commands_acked": .int(commandsAcked),
            "reports": .int(reports),
            "user_actions": .int(userActions),
            "peers_lost": .int(peersLost),
            "sessions_ended": .object(sessionsEnded.mapValues { .int($0) }),
            "sends_dropped": .object(sendsDropped.mapValues { .int($0) }),
        ]
        if !sessionsKeptAsHistory.isEmpty {
            fields["sessions_kept_as_history"] = .object(sessionsKeptAsHistory.mapValues { .int($0) })
        }
        if sessionsHibernated > 0 {
            fields["sessions_hibernated"] = .object([
                "now": .int(hibernatedNow), "total": .int(sessionsHibernated), "woken": .int(sessionsWoken),
            ])
        }
        if !sessionsNotHibernated.isEmpty {
            fields["sessions_not_hibernated"] = .object(sessionsNotHibernated.mapValues { .int($0) })
        }
        if !adapts.isEmpty { fields["adapts"] = .object(adapts.mapValues { .int($0) }) }
        if !adaptAnswersDropped.isEmpty {
            fields["adapt_answers_dropped"] = .object(adaptAnswersDropped.mapValues { .int($0) })
        }
        if !socketFilesRebound.isEmpty {
            fields["socket_files_rebound"] = .object(socketFilesRebound.mapValues { .int($0) })
        }
        if eventQueueOverflows > 0 { fields["event_queue_overflows"] = .int(eventQueueOverflows) }
        if socketFilesWithdrawn > 0 { fields["socket_files_withdrawn"] = .int(socketFilesWithdrawn) }
        if connectionsClosedAtLimit > 0 { fields["connections_closed_at_limit"] = .int(connectionsClosedAtLimit) }
        if !restartGracesEnded.isEmpty {
            fields["restart_graces_ended"] = .object(restartGracesEnded.mapValues { .int($0) })
        }
        if let authDenied { fields["auth_denied"] = .int(authDenied) }
        if let peersRevoked { fields["peers_revoked"] = .int(peersRevoked) }
        if let appReloads { fields["app_reloads"] = .int(appReloads) }
        if let appReloadsRefused { fields["app_reloads_refused"] = .int(appReloadsRefused) }
        return .object(fields)
    }
}
