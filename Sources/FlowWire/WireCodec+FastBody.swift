import FlowCore

extension WireCodec {
    /// Writes `message`'s body into `writer`, emptied first, as ``encodeBody(_:)`` writes it: the daemon sends a step's
    /// COMMAND and OK from one writer reused message after message, with no frames array or body array made for each.
    package func encodeBody(_ message: DaemonMessage, into writer: inout FastJSONWriter) {
        writer.reset()
        if !message.writeFastBody(to: &writer) { writer.replace(with: encodeBody(message.wire)) }
    }
}

// The messages of a step's round trip, and those the daemon sends to every peer (HEARTBEAT, WELCOME), are written
// without `JSONEncoder`, to the same bytes: each side's own switch, so that the daemon's hot path does not copy its
// message into a `WireMessage`.

extension ClientMessage {
    /// ``WireMessage/writeFastBody(to:)`` on a client's message.
    func writeFastBody(to writer: inout FastJSONWriter) -> Bool {
        do throws(FastPathUnsupported) {
            switch self {
            case .step(let body): try body.write(to: &writer)
            case .ack(let body): body.write(to: &writer)
            default: return false
            }
        } catch {
            return false
        }
        return true
    }
}

extension DaemonMessage {
    /// ``WireMessage/writeFastBody(to:)`` on the daemon's message.
    func writeFastBody(to writer: inout FastJSONWriter) -> Bool {
        do throws(FastPathUnsupported) {
            switch self {
            case .command(let body): try body.write(to: &writer)
            case .ok(let body): try body.write(to: &writer)
            case .event(let body): try body.write(to: &writer)
            case .adapt(let body): try body.write(to: &writer)
            case .heartbeat(let body): body.write(to: &writer)
            case .welcome(let body): body.write(to: &writer)
            default: return false
            }
        } catch {
            return false
        }
        return true
    }

    /// The type's frame (frame 1), without making the `WireMessage`.
    package var typeFrame: [UInt8] {
        switch self {
        case .command: return MessageType.commandFrame
        case .ok: return MessageType.okFrame
        default: return type.frame
        }
    }
}
