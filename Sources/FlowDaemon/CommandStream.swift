import DequeModule
internal import FlowCore
internal import FlowWire

/// A session's sequenced command stream: the last sequence number, the last commands for replay, and the commands
/// sequenced and not yet carried out. One stored property of ``Session``, so a command is sequenced in one access.
struct CommandStream {
    /// The sequence number of the last command.
    private(set) var seq: UInt64 = 0
    /// The last commands, for replay to a presenter that reconnects (oldest first), each with what it counts against
    /// ``bounds``: the last one's sequence number is ``seq`` and they follow each other, so only the commands
    /// are kept, not a message each (docs/PERFORMANCE.md, issue 11: an idle session).
    private var outbox: Deque<Kept> = []
    /// What the outbox's commands count together (``NavigationCommand/outboxBytes``).
    private(set) var outboxBytes = 0
    /// How many commands the outbox keeps (the operators' `outbox_commands`).
    var outboxCount: Int { outbox.count }
    private let bounds: OutboxBounds
    /// How many of the last commands are sequenced and not yet carried out: they end at ``seq``.
    private var untaken: UInt64 = 0
    /// Why the UI model refused commands not yet carried out, by sequence number (a refusal is rare).
    private var rejections: [UInt64: PresentationError] = [:]

    /// A command in the outbox and its size, measured once, as it came.
    private struct Kept {
        let command: NavigationCommand
        let bytes: Int
    }

    /// An empty stream whose outbox keeps what `bounds` allow.
    init(bounds: OutboxBounds) {
        self.bounds = bounds
    }

    /// A saved stream: its sequence number and the saved outbox's commands that follow each other up to it (a
    /// session saves no others), within the bounds as ``append(_:rejection:)`` would have kept them, so a restart
    /// with the same settings comes back to the same outbox.
    init(bounds: OutboxBounds, seq: UInt64, saved: [CommandMessage]) {
        self.init(bounds: bounds)
        self.seq = seq
        var kept = 0
        for message in saved.reversed() {
            guard UInt64(kept) < seq, message.seq == seq - UInt64(kept) else { break }
            kept += 1
        }
        for message in saved.suffix(kept) { keep(message.command) }
    }

    /// Sequences a command, with why the UI model refused it if it did; ``take()`` hands it over.
    mutating func append(_ command: NavigationCommand, rejection: PresentationError?) {
        seq += 1
        untaken += 1
        if let rejection { rejections[seq] = rejection }
        keep(command)
    }

    /// Keeps `command` for replay; the oldest go while the outbox is over a bound, the newest stays whatever its size.
    private mutating func keep(_ command: NavigationCommand) {
        let bytes = command.outboxBytes
        outbox.append(Kept(command: command, bytes: bytes))
        outboxBytes += bytes
        while outbox.count > bounds.commands || (outboxBytes > bounds.bytes && outbox.count > 1) {
            outboxBytes -= outbox.removeFirst().bytes
        }
    }

    /// The oldest command sequenced and not yet carried out: its sequence number, and why the UI model refused it if
    /// it did.
    mutating func take() -> (seq: UInt64, rejection: PresentationError?) {
        precondition(untaken > 0, "a command carried out that was not sequenced")
        let taken = seq - untaken + 1
        untaken -= 1
        return (taken, rejections.isEmpty ? nil : rejections.removeValue(forKey: taken))
    }

    /// Gives back the room a burst of commands left unused in the outbox.
    mutating func trim() {
        var trimmed = Deque<Kept>(minimumCapacity: outbox.count)
        trimmed.append(contentsOf: outbox)
        outbox = trimmed
    }

    /// The commands after `lastSeq`, if the outbox still holds all of them.
    func replay(after lastSeq: UInt64, session: String) -> [CommandMessage]? {
        guard lastSeq <= seq else { return nil }
        if lastSeq == seq { return [] }
        guard seq - UInt64(outbox.count) <= lastSeq else { return nil }
        return messages(after: lastSeq, session: session)
    }

    /// The whole outbox as messages, as a session saves it.
    func saved(session: String) -> [CommandMessage] {
        messages(after: seq - UInt64(outbox.count), session: session)
    }

    /// The outbox's commands after `lastSeq` (which it holds) as messages.
    private func messages(after lastSeq: UInt64, session: String) -> [CommandMessage] {
        let skipped = outbox.count - Int(seq - lastSeq)
        return outbox.dropFirst(skipped).enumerated().map { index, kept in
            CommandMessage(session: session, seq: lastSeq + 1 + UInt64(index), command: kept.command)
        }
    }
}
