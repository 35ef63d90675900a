internal import CZeroMQ

/// Readiness of a socket: what ``ZMQPoller`` waits for and what ``ZMQSocketOption/events`` reports.
package struct ZMQEvents: OptionSet, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int16

    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// `ZMQ_POLLIN`: at least one message can be received without blocking.
    package static let pollIn = ZMQEvents(rawValue: Int16(ZMQ_POLLIN))
    /// `ZMQ_POLLOUT`: at least one message can be sent without blocking.
    package static let pollOut = ZMQEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// `ZMQ_POLLERR`: an error condition (only reported for raw file descriptors).
    package static let pollError = ZMQEvents(rawValue: Int16(ZMQ_POLLERR))

    package var description: String {
        var names: [String] = []
        if contains(.pollIn) { names.append("pollIn") }
        if contains(.pollOut) { names.append("pollOut") }
        if contains(.pollError) { names.append("pollError") }
        return "[" + names.joined(separator: ", ") + "]"
    }
}
