public import FlowWire
public import Logging
public import ZeroMQ

/// The navigation event stream (`EVENT` on the events endpoint, `docs/PROTOCOL.md` §9) as an `AsyncSequence`.
///
/// Iterating subscribes: a `SUB` socket connects to the events endpoint and subscribes to `nav/<session>` (or `nav/`
/// for every session). Events of other sessions whose IDs merely start with the same text are skipped. The
/// subscription ends when the iteration ends or its task is cancelled (the sequence then ends). Events that do not
/// decode are logged and skipped. Each iteration has its own subscription.
public struct FlowEvents: AsyncSequence, Sendable {
    public typealias Element = EventMessage

    /// The events endpoint.
    public let endpoint: String
    /// The session watched; `nil` for every session.
    public let session: String?
    let options: ZMQSocketOptions
    let logger: Logger

    /// The events of `session` (or every session) published at `endpoint`.
    public init(endpoint: String, session: String?, options: ZMQSocketOptions = ZMQSocketOptions(), logger: Logger) {
        self.endpoint = endpoint
        self.session = session
        self.options = options
        self.logger = logger
    }

    /// The topic prefix subscribed to.
    public var topic: String { WireProtocol.eventTopicPrefix + (session ?? "") }

    public func makeAsyncIterator() -> Iterator { Iterator(events: self) }

    /// Iterates the events; subscribes on the first ``next()``.
    public struct Iterator: AsyncIteratorProtocol {
        let events: FlowEvents
        private var subscription: Subscription?
        private let codec: WireCodec

        init(events: FlowEvents) {
            self.events = events
            codec = WireCodec(decodingWhatFits: events.options)
        }

        /// The next event; `nil` when the task is cancelled.
        ///
        /// - Throws: ``FlowClientError`` when the subscription cannot be made (a malformed endpoint).
        public mutating func next() async throws -> EventMessage? {
            if subscription == nil { subscription = try await Subscription(events) }
            guard let subscription else { return nil }
            while let message = await subscription.socket.messages.next() {
                do {
                    let event = try codec.decodeEvent(message.frames)
                    if let session = events.session, event.session != session { continue }
                    return event
                } catch {
                    events.logger.warning("ignoring an event that does not decode", metadata: ["error": "\(error)"])
                }
            }
            return nil
        }
    }

    /// A `SUB` socket on its own loop; the loop shuts down (closing the socket) when the last reference goes.
    final class Subscription: Sendable {
        let loop: ZMQEventLoop
        let socket: ZMQSocketHandle

        init(_ events: FlowEvents) async throws {
            if let error = FlowClientError.untrustedSocketFolder(events.endpoint, options: events.options) {
                throw error
            }
            let loop: ZMQEventLoop
            do {
                loop = try ZMQEventLoop(
                    configuration: .init(socketOptions: events.options, threadName: "flowd-watch"),
                    logger: events.logger
                )
            } catch {
                throw FlowClientError(.transport, "cannot start the ZeroMQ loop: \(error)")
            }
            do {
                let socket = try await loop.makeSocket(.sub, options: events.options)
                try await loop.setOption(.subscribe, to: Array(events.topic.utf8), on: socket)
                try await loop.connect(socket, to: events.endpoint)
                self.socket = socket
            } catch {
                await loop.shutdown()
                throw FlowClientError(.invalidConfiguration, "cannot subscribe to '\(events.endpoint)': \(error)")
            }
            self.loop = loop
        }
    }
}

@available(*, unavailable)
extension FlowEvents.Iterator: Sendable {}
