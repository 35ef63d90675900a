public import FlowCore
public import FlowDaemon
public import FlowWire

/// An operator (flowctl's role) speaking to an ``EmbeddedDaemon``: deep links by step or by URI, as `flowctl step` and
/// `flowctl open` send them (`DEEPLINK`, docs/PROTOCOL.md §7).
///
/// Not `Sendable`: it belongs to its daemon's test.
public final class FakeOperator: EmbeddedPeer {
    /// What came of a `DEEPLINK`.
    public enum DeepLinkReply: Sendable, Hashable {
        /// Its `OK`: what was applied and skipped.
        case applied(DeepLinkResult)
        /// Its `ERROR` (`notDeepLinkable`, `unknownDeepLink`, `deepLinkIncomplete`, `unknownStep`…).
        case refused(ErrorReply)
        /// No reply yet: a step waits for its flows to be ready, on the daemon's clock (`daemon.deep_link_wait_ms`);
        /// move the clock or go on, then ask ``reply(to:)``.
        case waiting
    }

    /// The peer's routing ID.
    public let address: PeerAddress
    /// `HELLO.name`.
    public let name: String
    /// What it heard from the daemon.
    public private(set) var record = PeerRecord()
    private unowned let daemon: EmbeddedDaemon

    init(daemon: EmbeddedDaemon, name: String) {
        self.daemon = daemon
        self.address = daemon.newPeerAddress()
        self.name = name
    }

    /// Says `HELLO` as an operator.
    public func hello() {
        let hello = Hello(req: record.nextReq(), role: .operator, name: name, instance: name, heartbeatMs: 1000)
        daemon.enqueue(.hello(hello), from: address)
        daemon.settle()
    }

    /// Injects `step` into `session` (`flowctl step`); the reply, if it came before the daemon went idle.
    @discardableResult
    public func deepLink(_ step: Step, session: String = "default") -> DeepLinkReply {
        send { DeepLinkRequest(req: $0, session: session, step: step) }
    }

    /// Opens the deep link `uri` in `session` (`flowctl open`): the chain of steps the application maps it to.
    @discardableResult
    public func open(_ uri: String, session: String = "default") -> DeepLinkReply {
        send { DeepLinkRequest(req: $0, session: session, uri: uri) }
    }

    /// The reply to the request `req` (``PeerRecord/lastReq`` is the last one sent), so far.
    public func reply(to req: UInt64) -> DeepLinkReply {
        if let result = record.results[req], let applied = try? DeepLinkResult(json: result) { return .applied(applied) }
        if let error = record.errors.last(where: { $0.req == req }) { return .refused(error) }
        return .waiting
    }

    private func send(_ request: (UInt64) -> DeepLinkRequest) -> DeepLinkReply {
        let req = record.nextReq()
        daemon.enqueue(.deepLink(request(req)), from: address)
        daemon.settle()
        return reply(to: req)
    }

    func endOfBatch() {}

    func receive(_ message: DaemonMessage) { record.note(message) }
}

@available(*, unavailable)
extension FakeOperator: Sendable {}

extension EmbeddedDaemon {
    /// An operator connects (says `HELLO`), to deep-link as `flowctl step` and `flowctl open` do.
    public func connectOperator(name: String = "flowctl") -> FakeOperator {
        let peer = FakeOperator(daemon: self, name: name)
        register(peer)
        peer.hello()
        return peer
    }
}
