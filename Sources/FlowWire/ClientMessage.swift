/// A message a client sends the daemon (`docs/PROTOCOL.md` §3, §5, §6, §7): what the daemon answers, and what a
/// client's connection submits. The codec writes it as ``WireMessage/client(_:)``.
public enum ClientMessage: OneWayMessage {
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

    /// The message as the codec writes it.
    public var wire: WireMessage { .client(self) }
}
