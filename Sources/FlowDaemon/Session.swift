import FlowCore
import FlowWire

/// One session: a flow tree, the UI its commands build, and the sequenced command stream to its presenter.
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
final class Session {
    /// A remote stepper attachment and the stepper process it is assigned to.
    struct RemoteAttachment {
        let info: StepperAttachment
        let kind: String
        let context: JSONValue
        var assignedTo: PeerAddress?
    }

    let id: String
    var machine = FlowCoordinatorStateMachine()
    /// The UI as the session's commands (and the presenter's own user navigation) built it: what a snapshot sends.
    var ui = PresentationModel()
    /// The sequence number of the last command.
    private(set) var seq: UInt64 = 0
    /// The last commands, for replay to a presenter that reconnects (oldest first).
    var outbox: ArraySlice<CommandMessage> { storedOutbox[outboxStart...] }
    /// The outbox and the commands already dropped from its front, trimmed in chunks so that sequencing a command
    /// stays O(1) (removing the oldest one each time moved the whole outbox: docs/PERFORMANCE.md).
    private var storedOutbox: [CommandMessage] = []
    private var outboxStart = 0
    private let outboxLimit: Int
    /// The presenter hosting this session.
    var host: PeerAddress?
    /// The highest sequence number the host acknowledged.
    var ackedSeq: UInt64 = 0
    var remoteAttachments: [AttachmentID: RemoteAttachment] = [:]
    var localAttachments: [AttachmentID: StepperAttachment] = [:]

    init(id: String, outboxLimit: Int) {
        self.id = id
        self.outboxLimit = max(1, outboxLimit)
    }

    /// Sequences a command: applies it to the UI model and keeps it for replay.
    func sequence(_ command: NavigationCommand) -> (message: CommandMessage, rejection: PresentationError?) {
        seq += 1
        var rejection: PresentationError?
        do {
            _ = try ui.apply(command)
        } catch {
            rejection = error
        }
        let message = CommandMessage(session: id, seq: seq, command: command)
        storedOutbox.append(message)
        let excess = storedOutbox.count - outboxStart - outboxLimit
        if excess > 0 { outboxStart += excess }
        if outboxStart >= outboxLimit {
            storedOutbox.removeFirst(outboxStart)
            outboxStart = 0
        }
        return (message, rejection)
    }

    /// The commands after `lastSeq`, if the outbox still holds all of them.
    func replay(after lastSeq: UInt64) -> [CommandMessage]? {
        guard lastSeq <= seq else { return nil }
        if lastSeq == seq { return [] }
        guard let first = outbox.first, first.seq <= lastSeq + 1 else { return nil }
        return outbox.filter { $0.seq > lastSeq }
    }
}
