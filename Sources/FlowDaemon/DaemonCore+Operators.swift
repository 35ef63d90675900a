internal import FlowCore
package import FlowWire
internal import Logging

// Operators: SESSIONS, TREE, CREATE_SESSION, END_SESSION, HEALTH and DESCRIBE (DEEPLINK: DaemonCore+DeepLinks.swift).
extension DaemonCore {
    /// A page of `SESSIONS` (§7.3): from the sorted IDs, without walking the others.
    mutating func sessionList(_ body: SessionsRequest, from peer: Peer) {
        let limit = min(body.limit ?? SessionsRequest.defaultLimit, SessionsRequest.maxLimit)
        guard limit >= 1 else {
            return reject(.malformedBody, "limit must be 1 or more", req: body.req, type: .sessions, to: peer)
        }
        let page = sessions.ids(after: body.after, prefix: body.prefix ?? "", limit: limit)
        let summaries = page.ids.compactMap { id -> SessionSummary? in
            // A hibernated session is listed as it was when it hibernated, not made (woken) for its row.
            if let summary = sessions[pending: id]?.hibernation?.summary { return summary }
            guard let session = self.session(id) else {
                // Unrestorable (making it may have just found out so): listed, so that an operator sees and ends it.
                guard sessions.unrestorableReason(id) != nil else { return nil }
                return SessionSummary(id: id, flows: 0, presenter: nil, seq: 0, steppers: 0, unrestorable: true)
            }
            return summary(of: session)
        }
        reply(to: peer.address, req: body.req, result: SessionList(sessions: summaries, next: page.more ? page.ids.last : nil))
    }

    /// A made session's `SESSIONS` row; without `usage`, a UI still its saved bytes is read for it, so the figures
    /// are exact.
    func summary(of session: Session, usage: SessionUsage? = nil) -> SessionSummary {
        SessionSummary(
            id: session.id, flows: session.machine.coordinatorIDs.count,
            presenter: session.host.flatMap { peers[$0] }?.hello.name, seq: session.seq,
            steppers: session.machine.liveAttachments.count, usage: usage ?? session.usage(readingUI: true))
    }

    mutating func tree(_ body: SessionRequest, from peer: Peer) {
        guard let session = self.session(body.session) else {
            return rejectMissingSession(body.session, req: body.req, type: .tree, to: peer)
        }
        let snapshot = session.machine.snapshot()
        reply(to: peer.address, req: body.req, result: TreeReport(tree: WireTree(snapshot), text: snapshot.description))
    }

    mutating func createSessionRequest(_ body: SessionRequest, from peer: Peer) {
        if sessions.contains(body.session) {
            return reply(to: peer.address, req: body.req, result: CreateSessionResult(created: false))
        }
        guard roomForSession(req: body.req, type: .createSession, from: peer) else { return }
        _ = createSession(body.session)
        reply(to: peer.address, req: body.req, result: CreateSessionResult(created: true))
    }

    mutating func endSessionRequest(_ body: SessionRequest, from peer: Peer) {
        if sessions.unrestorableReason(body.session) != nil {
            // Its saved state is dropped: the operator's decision (nothing was attached or hosted since the restart).
            endSession(body.session, reason: "operator")
            return reply(to: peer.address, req: body.req, result: EndSessionResult(seq: 0, presenter: nil, attachments: 0))
        }
        guard let session = self.session(body.session) else {
            return rejectMissingSession(body.session, req: body.req, type: .endSession, to: peer)
        }
        let result = EndSessionResult(
            seq: session.seq, presenter: session.host.flatMap { peers[$0] }?.hello.name,
            attachments: session.remoteAttachments.count + session.localAttachments.count
        )
        endSession(session.id, reason: "operator")
        reply(to: peer.address, req: body.req, result: result)
    }

    /// `DESCRIBE`: the vocabulary of the version the session runs, or of the current one.
    mutating func describe(_ body: DescribeRequest, from peer: Peer) {
        var vocabulary: ApplicationVocabulary
        if let id = body.session {
            guard let session = self.session(id) else {
                return rejectMissingSession(id, req: body.req, type: .describe, to: peer)
            }
            vocabulary = session.application.vocabulary
            vocabulary.appVersion = session.appVersion
        } else {
            vocabulary = currentApplication.vocabulary
            vocabulary.appVersion = apps.current?.id
        }
        reply(to: peer.address, req: body.req, result: vocabulary)
    }

    func healthReport(now: UInt64) -> HealthReport {
        let counts = peerCounts
        return HealthReport(
            status: journalAvailable ? "ok" : "degraded",
            daemon: daemonID, uptimeSeconds: Double(now - startedAt) / 1000, sessions: sessions.count,
            sessionsPending: sessions.pendingCount, sessionsUnrestorable: sessions.unrestorableCount,
            peers: Dictionary(uniqueKeysWithValues: PeerRole.allCases.map { ($0.rawValue, counts[$0] ?? 0) }),
            counters: counters.json(hibernatedNow: sessions.hibernatedCount),
            journal: journaling
                ? HealthReport.Journal(
                    records: log.count, recoveredRecords: recoveredRecords, available: journalAvailable)
                : nil,
            appVersion: apps.current?.id,
            sessionBounds: sessionBounds, sessionUsageMax: sessionUsageMax,
            restartGrace: restartGrace.endsAt.map { endsAt in
                HealthReport.RestartGrace(
                    awaited: restartGrace.missing.mapValues { $0.sorted() },
                    msLeft: Int(endsAt > now ? endsAt - now : 0))
            }
        )
    }

    /// The bounds a session is held to, as ``SessionUsage`` names them (`HEALTH`'s `session_bounds`).
    package var sessionBounds: SessionUsage {
        let outbox = configuration.outboxBounds
        return SessionUsage(
            screens: configuration.maxSessionScreens, uiBytes: configuration.maxSessionUIBytes,
            attachments: configuration.maxSessionAttachments, outboxCommands: outbox.commands, outboxBytes: outbox.bytes)
    }

    /// The largest of each figure over the sessions (`HEALTH`'s `session_usage_max`): a walk over them, reading the
    /// counts each keeps, nothing read or made. A UI still its saved bytes counts as its `state` record said; a
    /// pending or hibernated session counts what it held when saved (``PendingSession/usage``). A session whose
    /// record did not say (only created, or written before the field) counts 0 for what it does not say.
    package var sessionUsageMax: SessionUsage {
        var largest = SessionUsage.zero
        for session in sessions.madeInNoOrder { largest = largest.maximum(session.usage(readingUI: false)) }
        for session in sessions.pendingInNoOrder {
            if let usage = session.usage { largest = largest.maximum(usage) }
        }
        return largest
    }
}
