#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FlowCore

/// Encodes and decodes messages as frames (`docs/PROTOCOL.md` §2).
///
/// `Sendable`: its configuration is immutable; every call makes its own JSON coder.
public struct WireCodec: Sendable {
    /// The largest body accepted.
    public let maxBodyBytes: Int

    public init(maxBodyBytes: Int = WireProtocol.defaultMaxBodyBytes) {
        self.maxBodyBytes = maxBodyBytes
    }

    // MARK: Encoding

    /// The three frames of a control message.
    public func encode(_ message: WireMessage) -> [[UInt8]] {
        [WireProtocol.signature, message.type.frame, encodeBody(message)]
    }

    /// The three frames of a message a client sends.
    public func encode(_ message: ClientMessage) -> [[UInt8]] { encode(.client(message)) }

    /// The three frames of a message the daemon sends.
    public func encode(_ message: DaemonMessage) -> [[UInt8]] { encode(.daemon(message)) }

    /// The four frames of an event on the events socket.
    public func encodeEvent(_ event: EventMessage) -> [[UInt8]] {
        [WireProtocol.eventTopic(session: event.session)] + encode(DaemonMessage.event(event))
    }

    /// The JSON body of a message.
    public func encodeBody(_ message: WireMessage) -> [UInt8] {
        // A step's round trip (STEP, COMMAND, OK, ACK, EVENT) is written without JSONEncoder, to the same bytes.
        if let body = message.fastBody { return body }
        do {
            switch message {
            case .client(.hello(let body)): return try json(body)
            case .client(.heartbeat(let body)), .daemon(.heartbeat(let body)): return try json(body)
            case .client(.bye): return Array("{}".utf8)
            case .client(.step(let body)): return try json(body)
            case .client(.adapted(let body)): return try json(body)
            case .client(.sync(let body)): return try json(body)
            case .client(.ack(let body)): return try json(body)
            case .client(.report(let body)): return try json(body)
            case .client(.userAction(let body)): return try json(body)
            case .client(.sessions(let body)): return try json(body)
            case .client(.tree(let body)), .client(.createSession(let body)), .client(.endSession(let body)):
                return try json(body)
            case .client(.deepLink(let body)): return try json(body)
            case .client(.health(let body)): return try json(body)
            case .client(.describe(let body)): return try json(body)
            case .daemon(.welcome(let body)): return try json(body)
            case .daemon(.ok(let body)): return try json(body)
            case .daemon(.error(let body)): return try json(body)
            case .daemon(.attach(let body)): return try json(body)
            case .daemon(.detach(let body)): return try json(body)
            case .daemon(.action(let body)): return try json(body)
            case .daemon(.adapt(let body)): return try json(body)
            case .daemon(.snapshot(let body)): return try json(body)
            case .daemon(.command(let body)): return try json(body)
            case .daemon(.event(let body)): return try json(body)
            }
        } catch {
            // Every body is made of strings, numbers and JSON values: encoding cannot fail short of a non-finite
            // double in a payload, which JSON cannot carry. Send it as null rather than trap.
            return Array("{}".utf8)
        }
    }

    private func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    // MARK: Decoding

    /// Decodes a control message's frames (without a routing id) that `sender` sent; a type only the other side sends
    /// decodes all the same, as that side's (the daemon refuses it by its type).
    ///
    /// - Throws: a ``WireError`` with the code to answer with, and the `req` and type when they could be read.
    public func decode(_ frames: [[UInt8]], from sender: WireSender) throws(WireError) -> WireMessage {
        guard frames.count == 3 else {
            throw WireError(.malformedFrame, "expected 3 frames, got \(frames.count)")
        }
        let signature = frames[0]
        let body = frames[2]
        if !signature.holds(WireProtocol.signatureText) {
            let version = signature.dropFirst(WireProtocol.signaturePrefix.count)
            if signature.starts(with: WireProtocol.signaturePrefix), !version.isEmpty,
                version.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                // `FLOWD<n>`: answered in version 1, with the req when the body has a readable one.
                throw WireError(
                    .unsupportedVersion,
                    "protocol version '\(String(decoding: version, as: UTF8.self))' is not supported; this is 1",
                    req: Self.peekReq(body)
                )
            }
            throw WireError(.malformedFrame, "frame 0 is not the FLOWD1 signature")
        }
        guard let type = MessageType(frame: frames[1]) else {
            let typeName = String(decoding: frames[1], as: UTF8.self)
            throw WireError(
                .unknownType, "unknown message type '\(WireError.quoted(typeName, limit: 32))'", req: Self.peekReq(body))
        }
        guard body.count <= maxBodyBytes else {
            throw WireError(
                .messageTooLarge, "body of \(body.count) bytes exceeds the limit of \(maxBodyBytes)",
                req: type.isRequest ? Self.peekReq(body) : nil, type: type
            )
        }
        // A step's round trip (STEP, ACK) is read without JSONDecoder when the body is plain enough; anything else,
        // errors included, goes the Codable way below.
        if let message = WireMessage.fastMessage(type, body: body, from: sender) {
            try validate(message, type, req: message.req)
            return message
        }
        switch JSONSyntax.fault(in: body, depthLimit: WireProtocol.maxNestingDepth) {
        case .invalid?:
            throw WireError(.malformedBody, "\(type.rawValue) body: not valid JSON", type: type)
        case .tooDeep?:
            throw WireError(
                .malformedBody, "\(type.rawValue) body nests deeper than \(WireProtocol.maxNestingDepth) levels",
                req: type.isRequest ? Self.peekReq(body, syntaxChecked: true) : nil, type: type
            )
        case nil:
            break
        }
        let req = type.isRequest ? Self.peekReq(body, syntaxChecked: true) : nil
        let message: WireMessage
        do {
            message = try decodeBody(type, Data(body), from: sender)
        } catch let error as WireError {
            var error = error
            error.req = type.isRequest ? error.req ?? req : nil
            error.type = type
            throw error
        } catch {
            let problem = JSONDecodingProblem.describe(error, in: body, rfc8259: true)
            throw WireError(.malformedBody, "\(type.rawValue) body: \(problem)", req: req, type: type)
        }
        try validate(message, type, req: req)
        return message
    }

    /// Decodes an event's four frames (topic first).
    public func decodeEvent(_ frames: [[UInt8]]) throws(WireError) -> EventMessage {
        guard frames.count == 4 else { throw WireError(.malformedFrame, "expected 4 frames, got \(frames.count)") }
        guard case .daemon(.event(let event)) = try decode(Array(frames.dropFirst()), from: .daemon) else {
            throw WireError(.unknownType, "not an EVENT")
        }
        return event
    }

    private func decodeBody(_ type: MessageType, _ data: Data, from sender: WireSender) throws -> WireMessage {
        let decoder = JSONDecoder()
        func body<T: Decodable>(_: T.Type) throws -> T { try decoder.decode(T.self, from: data) }
        switch type {
        case .hello: return .client(.hello(try body(Hello.self)))
        case .heartbeat:
            let heartbeat = try body(Heartbeat.self)
            return sender == .client ? .client(.heartbeat(heartbeat)) : .daemon(.heartbeat(heartbeat))
        case .bye:
            guard case .object = try body(JSONValue.self) else {
                throw DecodingError.typeMismatch(
                    [String: JSONValue].self, .init(codingPath: [], debugDescription: "not a JSON object")
                )
            }
            return .client(.bye)
        case .step: return .client(.step(try body(StepMessage.self)))
        case .adapted: return .client(.adapted(try body(AdaptedMessage.self)))
        case .sync: return .client(.sync(try body(Sync.self)))
        case .ack: return .client(.ack(try body(Ack.self)))
        case .report: return .client(.report(try body(Report.self)))
        case .userAction: return .client(.userAction(try body(UserAction.self)))
        case .sessions: return .client(.sessions(try body(SessionsRequest.self)))
        case .tree: return .client(.tree(try body(SessionRequest.self)))
        case .deepLink: return .client(.deepLink(try body(DeepLinkRequest.self)))
        case .createSession: return .client(.createSession(try body(SessionRequest.self)))
        case .endSession: return .client(.endSession(try body(SessionRequest.self)))
        case .health: return .client(.health(try body(PlainRequest.self)))
        case .describe: return .client(.describe(try body(DescribeRequest.self)))
        case .welcome: return .daemon(.welcome(try body(Welcome.self)))
        case .ok: return .daemon(.ok(try body(OKReply.self)))
        case .error: return .daemon(.error(try body(ErrorReply.self)))
        case .attach: return .daemon(.attach(try body(Attach.self)))
        case .detach: return .daemon(.detach(try body(Detach.self)))
        case .action: return .daemon(.action(try body(ActionMessage.self)))
        case .adapt: return .daemon(.adapt(try body(AdaptMessage.self)))
        case .snapshot: return .daemon(.snapshot(try body(SnapshotMessage.self)))
        case .command: return .daemon(.command(try body(CommandMessage.self)))
        case .event: return .daemon(.event(try body(EventMessage.self)))
        }
    }

    /// Checks the patterns and ranges JSON decoding does not; `type` is `message`'s, as frame 1 named it.
    private func validate(_ message: WireMessage, _ type: MessageType, req: UInt64?) throws(WireError) {
        func name(_ value: String, _ what: String) throws(WireError) {
            guard WireProtocol.isValidName(value) else {
                throw WireError(
                    .invalidName, "\(what) '\(WireError.quoted(value))' is not [A-Za-z0-9._-]{1,64}", req: req, type: type)
            }
        }
        func step(_ value: Step, _ what: String = "step name") throws(WireError) {
            guard WireProtocol.isValidStepName(value.name) else {
                throw WireError(
                    .invalidName, "\(what) '\(WireError.quoted(value.name))' is not [A-Za-z0-9._:-]{1,128}", req: req,
                    type: type)
            }
        }
        func presentable(_ value: String) throws(WireError) {
            guard WireProtocol.isValidPresentableID(value) else {
                throw WireError(.malformedBody, "presentable ID must be 1 to 256 bytes", req: req, type: type)
            }
        }
        if let number = message.req, number > WireProtocol.maxRequestNumber {
            // Out of range is unreadable: the reply carries no `req` a JSON reader could mistake for another.
            throw WireError(.malformedBody, "req must be within 0...2^53", req: nil, type: type)
        }
        switch message {
        case .client(.hello(let hello)):
            try name(hello.name, "client name")
            guard (1...WireProtocol.maxInstanceBytes).contains(hello.instance.utf8.count) else {
                let limit = WireProtocol.maxInstanceBytes
                throw WireError(.malformedBody, "instance must be 1 to \(limit) bytes", req: req, type: type)
            }
            guard (100...60_000).contains(hello.heartbeatMs) else {
                throw WireError(.malformedBody, "heartbeat_ms must be 100...60000", req: req, type: type)
            }
            for kind in hello.serves where !WireProtocol.isValidKind(kind) {
                throw WireError(
                    .invalidName, "stepper kind '\(WireError.quoted(kind))' is not [A-Za-z0-9._:-]{1,128}", req: req,
                    type: type)
            }
        case .client(.step(let body)):
            try name(body.session, "session")
            try step(body.step)
        case .client(.sync(let body)):
            try name(body.session, "session")
        case .client(.ack(let body)):
            try name(body.session, "session")
        case .client(.report(let body)):
            try name(body.session, "session")
            for report in body.reports { try presentable(report.presentable) }
        case .client(.userAction(let body)):
            try name(body.session, "session")
            try presentable(body.presentable)
            try step(body.action, "action name")
        case .client(.tree(let body)), .client(.createSession(let body)), .client(.endSession(let body)):
            try name(body.session, "session")
        case .client(.describe(let body)):
            if let session = body.session { try name(session, "session") }
        case .client(.deepLink(let body)):
            try name(body.session, "session")
            switch (body.step, body.uri) {
            case (let given?, nil): try step(given)
            case (nil, let uri?) where !uri.isEmpty && uri.utf8.count <= 2048: break
            default:
                throw WireError(
                    .malformedBody, "DEEPLINK takes a step or a uri (1 to 2048 bytes), not both", req: req, type: type)
            }
        case .daemon(.adapt(let body)):
            try name(body.session, "session")
            try step(body.step)
        case .client(.adapted(let body)):
            try name(body.session, "session")
            if case .replace(let replacement) = body.answer { try step(replacement) }
        case .client(.heartbeat), .client(.bye), .client(.sessions), .client(.health), .daemon(.welcome),
            .daemon(.heartbeat), .daemon(.ok), .daemon(.error), .daemon(.attach), .daemon(.detach), .daemon(.action),
            .daemon(.snapshot), .daemon(.command), .daemon(.event):
            break
        }
    }

    /// Reads `req` from a body that may not decode as its type, for the error reply. A body that is not RFC 8259 JSON
    /// has none (§2), whatever fault is answered (`JSONDecoder` would read `{"req": 5,}`'s); `syntaxChecked`: the
    /// caller ran ``JSONSyntax`` already.
    private static func peekReq(_ body: [UInt8], syntaxChecked: Bool = false) -> UInt64? {
        struct ReqOnly: Decodable { let req: UInt64? }
        guard body.count <= 1 << 20 else { return nil }
        if !syntaxChecked, JSONSyntax.fault(in: body, depthLimit: WireProtocol.maxNestingDepth) == .invalid {
            return nil
        }
        guard let req = (try? JSONDecoder().decode(ReqOnly.self, from: Data(body)))?.req ?? nil,
            req <= WireProtocol.maxRequestNumber
        else { return nil }
        return req
    }
}
