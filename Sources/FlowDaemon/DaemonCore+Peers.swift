internal import FlowCore
internal import FlowWire
internal import Logging

// Peers: HELLO and the routing of their messages, liveness, the allow-list, a peer lost.
extension DaemonCore {
    /// The heartbeat interval a connected peer said in its `HELLO`; `nil` when no peer is connected at `address`.
    package func heartbeatMs(ofConnected address: PeerAddress) -> Int? { peers[address]?.hello.heartbeatMs }

    // MARK: - Messages

    mutating func receive(_ frames: [[UInt8]], from address: PeerAddress, userID: String?, now: UInt64) {
        counters.messagesIn += 1
        // Any message is a sign of life, even one that is refused (§3).
        let known = peers.heard(address, at: now)
        let message: WireMessage
        do {
            message = try codec.decode(frames, from: .client)
        } catch {
            reject(Self.refusal(of: error, welcomed: known != nil), to: address)
            return
        }
        if case .client(.hello(let hello)) = message {
            welcome(hello, from: address, userID: userID, now: now)
            return
        }
        guard let peer = known else {
            reject(WireError(.notWelcome, "say HELLO first", req: message.req, type: message.type), to: address)
            return
        }
        if accessPolicy != nil, peer.userID != userID {
            // The routing ID belongs to another key's connection now (the one that said HELLO is gone): what that
            // connection held is not this one's.
            logger.notice(
                "routing id reused by another key; the old peer is gone",
                metadata: ["peer": "\(peer.id)", "key": "\(userID ?? "-")"]
            )
            peerLost(address)
            reject(WireError(.notWelcome, "say HELLO first", req: message.req, type: message.type), to: address)
            return
        }
        // Judged by its type: what only the daemon sends is refused here.
        guard Self.allowed(message.type, for: peer.role) else {
            // A type only the daemon sends is named so whether its body reads or not (``refusal(of:welcomed:)``).
            let why =
                Self.onlyTheDaemonSends(message.type)
                ? "only the daemon sends \(message.type.rawValue)"
                : "the role \(peer.role.rawValue) may not send \(message.type.rawValue)"
            reject(WireError(.forbidden, why, req: message.req, type: message.type), to: address)
            return
        }
        if case .client(.step(let body)) = message, let identity = peer.identity, !identity.mayEmit(body.step.name) {
            // The key's step names judge the sender, so before the journal (PROTOCOL.md §3's order).
            reject(
                WireError(
                    .forbidden, "the key '\(identity.name)' may not emit '\(body.step.name)'", req: body.req,
                    type: .step),
                to: address)
            return
        }
        if !journalAvailable, Self.changesState(message.type) {
            reject(
                WireError(
                    .journalUnavailable, "the journal cannot be written (disk full?); try again later",
                    req: message.req, type: message.type),
                to: address)
            return
        }
        switch message {
        case .client(.heartbeat):
            break
        case .client(.bye):
            logger.info("peer left", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
            peerLost(address)
        case .client(.step(let body)):
            step(body, from: peer)
        case .client(.adapted(let body)):
            adapted(body, from: peer)
        case .client(.sync(let body)):
            sync(body, from: peer)
        case .client(.ack(let body)):
            ack(body, from: peer)
        case .client(.report(let body)):
            report(body, from: peer)
        case .client(.userAction(let body)):
            userAction(body, from: peer)
        case .client(.sessions(let body)):
            sessionList(body, from: peer)
        case .client(.tree(let body)):
            tree(body, from: peer)
        case .client(.deepLink(let body)):
            deepLink(body, from: peer)
        case .client(.createSession(let body)):
            createSessionRequest(body, from: peer)
        case .client(.endSession(let body)):
            endSessionRequest(body, from: peer)
        case .client(.health(let body)):
            reply(to: address, req: body.req, result: healthReport(now: now))
        case .client(.describe(let body)):
            describe(body, from: peer)
        case .client(.hello), .daemon:
            break  // answered, or refused by `allowed`, above
        }
    }

    /// What a message the codec refused is answered with: a type only the daemon sends is refused by its direction
    /// (`forbidden`, or `notWelcome` before `HELLO`), whatever its body (§2), as when its body reads.
    static func refusal(of error: WireError, welcomed: Bool) -> WireError {
        guard error.code == .malformedBody, let type = error.type, onlyTheDaemonSends(type) else { return error }
        return welcomed
            ? WireError(.forbidden, "only the daemon sends \(type.rawValue)", req: error.req, type: type)
            : WireError(.notWelcome, "say HELLO first", req: error.req, type: type)
    }

    static func onlyTheDaemonSends(_ type: MessageType) -> Bool {
        switch type {
        case .welcome, .ok, .error, .attach, .detach, .action, .adapt, .snapshot, .command, .event: return true
        case .hello, .heartbeat, .bye, .step, .adapted, .sync, .ack, .report, .userAction, .sessions, .tree, .deepLink,
            .createSession, .endSession, .health, .describe:
            return false
        }
    }

    /// Whether a peer of `role` may send a message of `type` (a second `HELLO` is answered before this is asked; what
    /// only the daemon sends has no ``ClientMessage``).
    static func allowed(_ type: MessageType, for role: PeerRole) -> Bool {
        switch type {
        case .heartbeat, .bye: return true
        case .step, .adapted: return role == .stepper
        case .sync, .ack, .report, .userAction: return role == .presenter
        case .sessions, .tree, .deepLink, .createSession, .endSession, .health, .describe: return role == .operator
        case .hello, .welcome, .ok, .error, .attach, .detach, .action, .adapt, .snapshot, .command, .event: return false
        }
    }

    mutating func welcome(_ hello: Hello, from address: PeerAddress, userID: String?, now: UInt64) {
        var identity: AllowedClient?
        if let accessPolicy {
            guard let userID, let client = accessPolicy.client(userID: userID) else {
                return reject(
                    WireError(.forbidden, "this connection has no allowed key", req: hello.req, type: .hello),
                    to: address
                )
            }
            guard client.role == hello.role else {
                return reject(
                    WireError(
                        .forbidden,
                        "the key '\(client.name)' has the role \(client.role.rawValue), not \(hello.role.rawValue)",
                        req: hello.req, type: .hello
                    ),
                    to: address
                )
            }
            if let kind = hello.serves.first(where: { !client.mayServe($0) }) {
                return reject(
                    WireError(
                        .forbidden, "the key '\(client.name)' may not serve the stepper kind '\(kind)'", req: hello.req,
                        type: .hello
                    ),
                    to: address
                )
            }
            identity = client
        }
        // The same client restarted or reconnected (same role, name and key; new connection): the old connection is
        // told it was replaced (§3), so a second live process of that name stops instead of taking it back.
        var inherited: [(session: String, attachment: AttachmentID)] = []
        for old in peers.replaced(by: hello, at: address, userID: identity == nil ? nil : userID) {
            logger.info("peer replaced by its restart", metadata: ["peer": "\(peers[old]!.id)", "name": "\(hello.name)"])
            // A notice, not a refusal of anything the old connection sent: not counted under `errors`.
            let notice = WireError(
                .replaced, "another connection said HELLO as '\(hello.name)' (instance \(hello.instance)); stop",
                type: .hello
            )
            send(.error(ErrorReply(notice)), to: old)
            inherited += peerLost(old, reassigning: false)
        }
        let id: String
        if let existing = peers[address] {
            // HELLO again on a known connection: the client started over (§3), so what the connection held is
            // released first; a stepper gets its attachments again below (§5.1), a presenter syncs again.
            id = existing.id
            inherited += peerLost(address, reassigning: false)
        } else {
            id = peers.nextID()
        }
        peers.insert(Peer(
            address: address, id: id, hello: hello, identity: identity, userID: identity == nil ? nil : userID,
            livenessMs: configuration.livenessWindow(peerHeartbeatMs: hello.heartbeatMs), lastHeard: now,
            nextHeartbeat: now + configuration.heartbeatInterval
        ))
        logger.info(
            "peer joined",
            metadata: [
                "peer": "\(id)", "role": "\(hello.role.rawValue)", "name": "\(hello.name)",
                "key": "\(identity?.name ?? "-")",
            ]
        )
        let heartbeatMs = Int(configuration.heartbeatInterval)
        send(.welcome(Welcome(req: hello.req, peer: id, daemon: daemonID, heartbeatMs: heartbeatMs)), to: address)
        // What the replaced connection served stays with its successor when it serves the kind still (§5.1), even
        // where another process serves it too: its steps sent again (§5.5) are for these attachments.
        for (sessionID, attachment) in inherited {
            guard let session = self.session(sessionID), let remote = session.remoteAttachments[attachment],
                remote.assignedTo == nil
            else { continue }
            assign(attachment, in: session, preferring: hello.serves.contains(remote.kind) ? address : nil)
        }
        if hello.role == .stepper {
            stepperProcessJoined(hello)
            // The attachments waiting for a process of the kinds it serves (the index: not every session), a batch
            // at a time so that they fit in its queue (§5.1).
            offerWaitingAttachments(servedBy: hello, now: now)
            sendWaitingQuestions(to: hello, at: address)
        }
    }

    // MARK: - Liveness

    /// Forgets the peers silent for their liveness interval and sends the heartbeats due, each in join order.
    mutating func tick(now: UInt64) {
        let heardUntil = min(now, inboxReadAt ?? now)
        for peer in peers.silent(before: heardUntil) {
            logger.notice("peer silent, counted dead", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
            counters.peersLost += 1
            peerLost(peer.address)
        }
        for peer in peers.takeHeartbeatsDue(at: now, next: now + configuration.heartbeatInterval) {
            var hosted: [String: UInt64] = [:]
            for id in holdings.sessions(hostedBy: peer.address) { hosted[id] = self.session(id)?.seq }
            send(.heartbeat(Heartbeat(sessions: hosted)), to: peer.address)
        }
    }

    /// A new allow-list (the operator edited it and sent flowd SIGHUP): new connections are held to it by the ZAP
    /// handler, and every peer whose key is gone from it or whose entry changed (role, steps, kinds, sessions) is
    /// forgotten as if it were lost: its next message gets `notWelcome`, and its `HELLO` again is judged by the new
    /// entry (`forbidden` when there is none). Peers whose entry is unchanged keep everything. Without CURVE there is
    /// no allow-list to replace: ignored.
    mutating func replaceAccessPolicy(with policy: AccessPolicy) {
        guard accessPolicy != nil else {
            logger.warning("an allow-list was given to a daemon without CURVE; ignored")
            return
        }
        accessPolicy = policy
        let ordered = peers.inJoinOrder
        var revoked = 0
        for peer in ordered {
            guard let userID = peer.userID, let identity = peer.identity else { continue }
            let entry = policy.client(userID: userID)
            guard entry != identity else { continue }
            logger.notice(
                entry == nil
                    ? "key revoked; peer forgotten" : "key's rights changed; peer forgotten until it says HELLO",
                metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)", "key": "\(identity.name)"]
            )
            revoked += 1
            counters.peersRevoked = (counters.peersRevoked ?? 0) + 1
            peerLost(peer.address)
        }
        logger.info(
            "allow-list replaced", metadata: ["clients": "\(policy.clients.count)", "peers_forgotten": "\(revoked)"])
    }

    /// Forgets a peer: its sessions lose their host, its attachments go to another process serving their kind, or,
    /// when not `reassigning`, wait unassigned (returned) for the caller to hand them on.
    @discardableResult
    mutating func peerLost(
        _ address: PeerAddress, reassigning: Bool = true
    ) -> [(session: String, attachment: AttachmentID)] {
        guard let peer = peers.remove(address) else { return [] }
        if peer.role == .stepper { stepperProcessLeft(peer.hello) }
        // What the peer held, from the index: a lost peer costs what it held, not the number of sessions.
        for id in holdings.sessions(hostedBy: address) {
            guard let session = self.session(id) else { continue }
            session.host = nil
            session.lastActive = currentTime
            idleDeadlines.watch(session)
            watchForHibernation(session, since: currentTime)
            presentablesLost(in: session)
        }
        var orphans: [(session: String, attachment: AttachmentID)] = []
        for key in holdings.attachments(assignedTo: address) {
            guard let session = self.session(key.session) else { continue }
            session.assign(key.attachment, to: nil)
            orphans.append((key.session, key.attachment))
            if reassigning { assign(key.attachment, in: session) }
        }
        questionsLost(by: address, reasking: reassigning)
        logger.info("peer gone", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
        return orphans
    }
}
