internal import FlowCore
internal import FlowWire
internal import Logging

// Operators: SESSIONS, TREE, DEEP_LINK, CREATE_SESSION and HEALTH.
extension DaemonCore {
    func sessionsResult() -> JSONValue {
        .object([
            "sessions": .array(
                sortedSessions().map { session in
                    .object([
                        "id": .string(session.id),
                        "flows": .int(session.machine.coordinatorIDs.count),
                        "presenter": session.host.flatMap { peers[$0] }.map { .string($0.hello.name) } ?? .null,
                        "seq": .int(Int(session.seq)),
                        "steppers": .int(session.machine.liveAttachments.count),
                    ])
                }
            )
        ])
    }

    mutating func tree(_ body: SessionRequest, from peer: Peer) {
        guard let session = sessions[body.session] else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .tree, to: peer)
        }
        let snapshot = session.machine.snapshot()
        let tree = (try? StepPayload(encoding: WireTree(snapshot))) ?? .null
        reply(to: peer.address, req: body.req, result: ["tree": tree, "text": .string(snapshot.description)])
    }

    mutating func deepLink(_ body: DeepLinkRequest, from peer: Peer) {
        guard let session = sessions[body.session] else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .deepLink, to: peer)
        }
        if let names = application.stepNames, !names.contains(body.step.name) {
            return reject(.unknownStep, "no step named '\(body.step.name)'", req: body.req, type: .deepLink, to: peer)
        }
        let actions = change(JournalRecord(session: session.id, kind: .input(.deepLink(body.step), origin: nil)))
        let navigations = actions.filter { if case .didNavigate = $0 { return true } else { return false } }.count
        reply(to: peer.address, req: body.req, result: ["navigations": .int(navigations)])
    }

    mutating func createSessionRequest(_ body: SessionRequest, from peer: Peer) {
        if sessions[body.session] != nil {
            return reply(to: peer.address, req: body.req, result: ["created": false])
        }
        guard sessions.count < configuration.maxSessions else {
            return reject(
                .sessionLimit, "the daemon holds \(configuration.maxSessions) sessions already", req: body.req,
                type: .createSession, to: peer
            )
        }
        _ = createSession(body.session)
        reply(to: peer.address, req: body.req, result: ["created": true])
    }

    func healthResult(now: UInt64) -> JSONValue {
        let counts = peerCounts
        return .object([
            "status": "ok",
            "daemon": .string(daemonID),
            "uptime_s": .double(Double(now - startedAt) / 1000),
            "sessions": .int(sessions.count),
            "peers": .object(Dictionary(uniqueKeysWithValues: PeerRole.allCases.map { ($0.rawValue, .int(counts[$0] ?? 0)) })),
            "counters": counters.json,
        ].merging(
            journaling ? ["journal": ["records": .int(log.count), "recovered_records": .int(recoveredRecords)]] : [:]
        ) { first, _ in first })
    }
}
