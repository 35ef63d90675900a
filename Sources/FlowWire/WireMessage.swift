import FlowCore

/// Every message of the protocol, decoded (`docs/PROTOCOL.md`).
public enum WireMessage: Sendable, Hashable {
    case hello(Hello)
    case welcome(Welcome)
    case heartbeat(Heartbeat)
    case bye
    case ok(OKReply)
    case error(ErrorReply)
    case attach(Attach)
    case detach(Detach)
    case step(StepMessage)
    case action(ActionMessage)
    case adapt(AdaptMessage)
    case adapted(AdaptedMessage)
    case sync(Sync)
    case snapshot(SnapshotMessage)
    case command(CommandMessage)
    case ack(Ack)
    case report(Report)
    case userAction(UserAction)
    case sessions(SessionsRequest)
    case tree(SessionRequest)
    case deepLink(DeepLinkRequest)
    case createSession(SessionRequest)
    case endSession(SessionRequest)
    case health(PlainRequest)
    case describe(DescribeRequest)
    case event(EventMessage)

    /// The message's type (frame 1).
    public var type: MessageType {
        switch self {
        case .hello: return .hello
        case .welcome: return .welcome
        case .heartbeat: return .heartbeat
        case .bye: return .bye
        case .ok: return .ok
        case .error: return .error
        case .attach: return .attach
        case .detach: return .detach
        case .step: return .step
        case .action: return .action
        case .adapt: return .adapt
        case .adapted: return .adapted
        case .sync: return .sync
        case .snapshot: return .snapshot
        case .command: return .command
        case .ack: return .ack
        case .report: return .report
        case .userAction: return .userAction
        case .sessions: return .sessions
        case .tree: return .tree
        case .deepLink: return .deepLink
        case .createSession: return .createSession
        case .endSession: return .endSession
        case .health: return .health
        case .describe: return .describe
        case .event: return .event
        }
    }

    /// The request number the message carries, if it is a request or a reply.
    public var req: UInt64? {
        switch self {
        case .hello(let body): return body.req
        case .welcome(let body): return body.req
        case .ok(let body): return body.req
        case .error(let body): return body.req
        case .step(let body): return body.req
        case .sync(let body): return body.req
        case .report(let body): return body.req
        case .userAction(let body): return body.req
        case .sessions(let body): return body.req
        case .health(let body): return body.req
        case .describe(let body): return body.req
        case .tree(let body), .createSession(let body), .endSession(let body): return body.req
        case .deepLink(let body): return body.req
        case .heartbeat, .bye, .attach, .detach, .action, .adapt, .adapted, .snapshot, .command, .ack, .event:
            return nil
        }
    }
}

extension WireMessage {
    /// The body as `JSONEncoder` writes it, for the messages of a step's round trip; `nil` for the others, or for a
    /// body the fast path leaves to `JSONEncoder` (a double somewhere).
    var fastBody: [UInt8]? {
        var writer = FastJSONWriter()
        return writeFastBody(to: &writer) ? writer.takeBytes() : nil
    }

    /// Writes the body as ``fastBody`` does, after what `writer` holds.
    ///
    /// - Returns: `false` when the fast path leaves the body to `JSONEncoder` (`writer` may hold part of it).
    func writeFastBody(to writer: inout FastJSONWriter) -> Bool {
        do throws(FastPathUnsupported) {
            switch self {
            case .step(let body): try body.write(to: &writer)
            case .command(let body): try body.write(to: &writer)
            case .ok(let body): try body.write(to: &writer)
            case .ack(let body): body.write(to: &writer)
            case .event(let body): try body.write(to: &writer)
            case .adapt(let body): try body.write(to: &writer)
            default: return false
            }
        } catch {
            return false
        }
        return true
    }

    /// The message `body` holds for `type`, for the messages of a step's round trip (`STEP`, `ACK` and `ADAPTED` to the
    /// daemon, `COMMAND` and `OK` to its clients); `nil` to use `JSONDecoder` (another type, or a body the fast path is
    /// not sure to read as `JSONDecoder` does).
    package static func fastMessage(_ type: MessageType, body: [UInt8]) -> WireMessage? {
        switch type {
        case .step: return FastJSONReader.read(body, StepMessage.init(reading:)).map(WireMessage.step)
        case .ack: return FastJSONReader.read(body, Ack.init(reading:)).map(WireMessage.ack)
        case .command: return FastJSONReader.read(body, CommandMessage.init(reading:)).map(WireMessage.command)
        case .ok: return FastJSONReader.read(body, OKReply.init(reading:)).map(WireMessage.ok)
        case .adapted: return FastJSONReader.read(body, AdaptedMessage.init(reading:)).map(WireMessage.adapted)
        default: return nil
        }
    }
}
