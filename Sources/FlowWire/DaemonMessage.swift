/// A message the daemon sends a client (`docs/PROTOCOL.md` §3, §5, §6, §9): what the daemon's core outputs, and
/// what a client's connection receives. The codec writes it as ``WireMessage/daemon(_:)``.
public enum DaemonMessage: OneWayMessage {
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

    /// The message as the codec writes it.
    public var wire: WireMessage { .daemon(self) }
}
