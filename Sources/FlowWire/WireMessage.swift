import FlowCore

/// A message as the codec reads and writes it (`docs/PROTOCOL.md` §2): one a client sends, or one the daemon sends.
///
/// `HEARTBEAT` is the one type both send: a decoded one is the side the caller of ``WireCodec/decode(_:from:)`` names.
public enum WireMessage: Sendable, Hashable {
    case client(ClientMessage)
    case daemon(DaemonMessage)

    /// Who sends the message.
    public var sender: WireSender { if case .client = self { .client } else { .daemon } }

    /// The message's type (frame 1).
    public var type: MessageType {
        switch self {
        case .client(.hello): return .hello
        case .client(.heartbeat), .daemon(.heartbeat): return .heartbeat
        case .client(.bye): return .bye
        case .client(.step): return .step
        case .client(.adapted): return .adapted
        case .client(.sync): return .sync
        case .client(.ack): return .ack
        case .client(.report): return .report
        case .client(.userAction): return .userAction
        case .client(.sessions): return .sessions
        case .client(.tree): return .tree
        case .client(.deepLink): return .deepLink
        case .client(.createSession): return .createSession
        case .client(.endSession): return .endSession
        case .client(.health): return .health
        case .client(.describe): return .describe
        case .daemon(.welcome): return .welcome
        case .daemon(.ok): return .ok
        case .daemon(.error): return .error
        case .daemon(.attach): return .attach
        case .daemon(.detach): return .detach
        case .daemon(.action): return .action
        case .daemon(.adapt): return .adapt
        case .daemon(.snapshot): return .snapshot
        case .daemon(.command): return .command
        case .daemon(.event): return .event
        }
    }

    /// The request number the message carries, if it is a request or a reply.
    public var req: UInt64? {
        switch self {
        case .client(.hello(let body)): return body.req
        case .client(.step(let body)): return body.req
        case .client(.sync(let body)): return body.req
        case .client(.report(let body)): return body.req
        case .client(.userAction(let body)): return body.req
        case .client(.sessions(let body)): return body.req
        case .client(.health(let body)): return body.req
        case .client(.describe(let body)): return body.req
        case .client(.tree(let body)), .client(.createSession(let body)), .client(.endSession(let body)): return body.req
        case .client(.deepLink(let body)): return body.req
        case .daemon(.welcome(let body)): return body.req
        case .daemon(.ok(let body)): return body.req
        case .daemon(.error(let body)): return body.req
        case .client(.heartbeat), .client(.bye), .client(.adapted), .client(.ack), .daemon(.heartbeat),
            .daemon(.attach), .daemon(.detach), .daemon(.action), .daemon(.adapt), .daemon(.snapshot),
            .daemon(.command), .daemon(.event):
            return nil
        }
    }
}

/// Who sent a frame: it decides the side of a `HEARTBEAT`, the one type both send; every other type has one sender.
public enum WireSender: Sendable, Hashable {
    case client
    case daemon
}

/// A message that one side sends: ``ClientMessage`` or ``DaemonMessage``, each a case of ``WireMessage``.
public protocol OneWayMessage: Sendable, Hashable {
    /// The message as the codec writes it.
    var wire: WireMessage { get }
}

extension OneWayMessage {
    /// The message's type (frame 1).
    public var type: MessageType { wire.type }

    /// The request number, if it is a request or a reply.
    public var req: UInt64? { wire.req }
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
        switch self {
        case .client(let message): return message.writeFastBody(to: &writer)
        case .daemon(let message): return message.writeFastBody(to: &writer)
        }
    }

    /// The message `body` holds for `type`, for the messages of a step's round trip (`STEP`, `ACK` and `ADAPTED` to the
    /// daemon, `COMMAND` and `OK` to its clients) and a client's `HEARTBEAT` as a `FlowClient` writes it; `nil` to
    /// use `JSONDecoder` (another type, or a body the fast path is not sure to read as `JSONDecoder` does).
    package static func fastMessage(_ type: MessageType, body: [UInt8], from sender: WireSender) -> WireMessage? {
        switch type {
        case .heartbeat where sender == .client:
            return body == Heartbeat.emptyBody ? .client(.heartbeat(Heartbeat())) : nil
        case .step: return FastJSONReader.read(body, StepMessage.init(reading:)).map { .client(.step($0)) }
        case .ack: return FastJSONReader.read(body, Ack.init(reading:)).map { .client(.ack($0)) }
        case .adapted: return FastJSONReader.read(body, AdaptedMessage.init(reading:)).map { .client(.adapted($0)) }
        case .command: return FastJSONReader.read(body, CommandMessage.init(reading:)).map { .daemon(.command($0)) }
        case .ok: return FastJSONReader.read(body, OKReply.init(reading:)).map { .daemon(.ok($0)) }
        default: return nil
        }
    }
}
