import ZeroMQ

extension ZMQSocket {
    /// On this monitor `PAIR`: reads events until one of `kinds` arrives (blocking, up to its receive timeout for
    /// each); returns the events read, the matching one last.
    func connectionEvents(until kinds: ZMQMonitorEvent.Kind) throws -> [ZMQMonitorEvent] {
        var events: [ZMQMonitorEvent] = []
        while true {
            guard let event = ZMQMonitorEvent(try receive()) else { continue }
            events.append(event)
            if !event.kind.isDisjoint(with: kinds) { return events }
        }
    }
}
