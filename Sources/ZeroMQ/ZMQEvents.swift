internal import CZeroMQ

/// Readiness of a socket: what ``ZMQPoller`` waits for and what ``ZMQSocketOption/events`` reports.
package struct ZMQEvents: ZMQNamedFlags, Hashable, Sendable {
    package let rawValue: Int16

    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// `ZMQ_POLLIN`: at least one message can be received without blocking.
    package static let pollIn = ZMQEvents(rawValue: Int16(ZMQ_POLLIN))
    /// `ZMQ_POLLOUT`: at least one message can be sent without blocking.
    package static let pollOut = ZMQEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// `ZMQ_POLLERR`: an error condition (only reported for raw file descriptors).
    package static let pollError = ZMQEvents(rawValue: Int16(ZMQ_POLLERR))

    package static let names: [(flag: ZMQEvents, name: String)] = [
        (.pollIn, "pollIn"), (.pollOut, "pollOut"), (.pollError, "pollError"),
    ]
}
