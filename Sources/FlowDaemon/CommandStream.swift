import DequeModule
internal import FlowCore
internal import FlowWire

/// A session's sequenced command stream: the last sequence number, the last commands for replay, and the commands
/// sequenced and not yet carried out. One stored property of ``Session``, so a command is sequenced in one access.
struct CommandStream {
    /// The sequence number of the last command.
    private(set) var seq: UInt64 = 0
    /// The last commands, for replay to a presenter that reconnects (oldest first): the last one's sequence number
    /// is ``seq`` and they follow each other, so only the commands are kept, not a message each
    /// (docs/PERFORMANCE.md, issue 11: an idle session).
    private var outbox: Deque<NavigationCommand> = []
    private let outboxLimit: Int
    /// How many of the last commands are sequenced and not yet carried out: they end at ``seq``.
    private var untaken: UInt64 = 0
    /// Why the UI model refused commands not yet carried out, by sequence number (a refusal is rare).
    private var rejections: [UInt64: PresentationError] = [:]

    init(outboxLimit: Int) {
        self.outboxLimit = max(1, outboxLimit)
    }

    /// A saved stream: its sequence number and the saved outbox's commands that follow each other up to it (a
    /// session saves no others).
    init(outboxLimit: Int, seq: UInt64, saved: [CommandMessage]) {
        self.init(outboxLimit: outboxLimit)
        self.seq = seq
        var kept = 0
        for message in saved.reversed() {
            guard UInt64(kept) < seq, message.seq == seq - UInt64(kept) else { break }
            kept += 1
        }
        outbox = Deque(saved.suffix(kept).map(\.command))
    }

    /// Sequences a command, with why the UI model refused it if it did; ``take()`` hands it over.
    mutating func append(_ command: NavigationCommand, rejection: PresentationError?) {
        seq += 1
        untaken += 1
        if let rejection { rejections[seq] = rejection }
        outbox.append(command)
        while outbox.count > outboxLimit { outbox.removeFirst() }
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
        var trimmed = Deque<NavigationCommand>(minimumCapacity: outbox.count)
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
        return outbox.dropFirst(skipped).enumerated().map { index, command in
            CommandMessage(session: session, seq: lastSeq + 1 + UInt64(index), command: command)
        }
    }
}
