/// A message a client sends the daemon (`docs/PROTOCOL.md` §3, §5, §6, §7): what the daemon answers, and what a
/// client's connection submits.
///
/// ``WireMessage`` is every frame the codec reads or writes, either way; a decoded message that a client may not send
/// (`WELCOME`, `COMMAND`…) has no `ClientMessage` and the daemon refuses it (`forbidden`).
public enum ClientMessage: Sendable, Hashable {
    case hello(Hello)
    case heartbeat(Heartbeat)
    case bye
    // Steppers (§5)
    case step(StepMessage)
    case adapted(AdaptedMessage)
    // Presenters (§6)
    case sync(Sync)
    case ack(Ack)
    case report(Report)
    case userAction(UserAction)
    // Operators (§7)
    case sessions(SessionsRequest)
    case tree(SessionRequest)
    case deepLink(DeepLinkRequest)
    case createSession(SessionRequest)
    case endSession(SessionRequest)
    case health(PlainRequest)
    case describe(DescribeRequest)

    /// `message` when a client may send it; `nil` for what only the daemon sends.
    public init?(_ message: WireMessage) {
        switch message {
        case .hello(let body): self = .hello(body)
        case .heartbeat(let body): self = .heartbeat(body)
        case .bye: self = .bye
        case .step(let body): self = .step(body)
        case .adapted(let body): self = .adapted(body)
        case .sync(let body): self = .sync(body)
        case .ack(let body): self = .ack(body)
        case .report(let body): self = .report(body)
        case .userAction(let body): self = .userAction(body)
        case .sessions(let body): self = .sessions(body)
        case .tree(let body): self = .tree(body)
        case .deepLink(let body): self = .deepLink(body)
        case .createSession(let body): self = .createSession(body)
        case .endSession(let body): self = .endSession(body)
        case .health(let body): self = .health(body)
        case .describe(let body): self = .describe(body)
        case .welcome, .ok, .error, .attach, .detach, .action, .adapt, .snapshot, .command, .event: return nil
        }
    }

    /// The message as the codec writes it.
    public var wire: WireMessage {
        switch self {
        case .hello(let body): return .hello(body)
        case .heartbeat(let body): return .heartbeat(body)
        case .bye: return .bye
        case .step(let body): return .step(body)
        case .adapted(let body): return .adapted(body)
        case .sync(let body): return .sync(body)
        case .ack(let body): return .ack(body)
        case .report(let body): return .report(body)
        case .userAction(let body): return .userAction(body)
        case .sessions(let body): return .sessions(body)
        case .tree(let body): return .tree(body)
        case .deepLink(let body): return .deepLink(body)
        case .createSession(let body): return .createSession(body)
        case .endSession(let body): return .endSession(body)
        case .health(let body): return .health(body)
        case .describe(let body): return .describe(body)
        }
    }

    /// The message's type (frame 1).
    public var type: MessageType { wire.type }

    /// The request number, if it is a request.
    public var req: UInt64? { wire.req }
}
