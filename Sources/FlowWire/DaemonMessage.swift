/// A message the daemon sends a client (`docs/PROTOCOL.md` §3, §5, §6, §9): what the daemon's core outputs, and
/// what a client's connection receives.
///
/// ``WireMessage`` is every frame the codec reads or writes, either way; a decoded message that only a client sends
/// (`STEP`, `SYNC`…) has no `DaemonMessage`, and a client ignores it.
public enum DaemonMessage: Sendable, Hashable {
    case welcome(Welcome)
    case heartbeat(Heartbeat)
    case ok(OKReply)
    case error(ErrorReply)
    // Steppers (§5)
    case attach(Attach)
    case detach(Detach)
    case action(ActionMessage)
    case adapt(AdaptMessage)
    // Presenters (§6)
    case snapshot(SnapshotMessage)
    case command(CommandMessage)
    // Events (§9)
    case event(EventMessage)

    /// `message` when the daemon sends it; `nil` for what only a client sends.
    public init?(_ message: WireMessage) {
        switch message {
        case .welcome(let body): self = .welcome(body)
        case .heartbeat(let body): self = .heartbeat(body)
        case .ok(let body): self = .ok(body)
        case .error(let body): self = .error(body)
        case .attach(let body): self = .attach(body)
        case .detach(let body): self = .detach(body)
        case .action(let body): self = .action(body)
        case .adapt(let body): self = .adapt(body)
        case .snapshot(let body): self = .snapshot(body)
        case .command(let body): self = .command(body)
        case .event(let body): self = .event(body)
        case .hello, .bye, .step, .adapted, .sync, .ack, .report, .userAction, .sessions, .tree, .deepLink, .createSession,
            .endSession, .health, .describe:
            return nil
        }
    }

    /// The message as the codec writes it.
    public var wire: WireMessage {
        switch self {
        case .welcome(let body): return .welcome(body)
        case .heartbeat(let body): return .heartbeat(body)
        case .ok(let body): return .ok(body)
        case .error(let body): return .error(body)
        case .attach(let body): return .attach(body)
        case .detach(let body): return .detach(body)
        case .action(let body): return .action(body)
        case .adapt(let body): return .adapt(body)
        case .snapshot(let body): return .snapshot(body)
        case .command(let body): return .command(body)
        case .event(let body): return .event(body)
        }
    }

    /// The message's type (frame 1).
    public var type: MessageType { wire.type }

    /// The request number, if it is a reply.
    public var req: UInt64? { wire.req }
}
