internal import FlowCore
internal import FlowWire

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
        /// Whether the daemon carried out a step a stepper process sent for it (journaled with the step).
        var stepped = false
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
    /// Adaptations running outside the tree, run again after a recovery if they had not completed.
    var pendingAdapts: [AdaptRequestID: AdaptRequest] = [:]

    init(id: String, outboxLimit: Int) {
        self.id = id
        self.outboxLimit = max(1, outboxLimit)
    }

    /// Sequences a command: applies it to the UI model and keeps it for replay.
    func sequence(_ command: NavigationCommand) -> (message: CommandMessage, rejection: PresentationError?) {
        seq += 1
        var rejection: PresentationError?
        do {
            for case .dismissed(let removed) in try ui.apply(command) where !unreportedSet.contains(removed) {
                unreportedSet.insert(removed)
                unreportedDismissals.append(removed)
            }
            if !unreportedSet.isEmpty, command.addsScreens {
                // Shown again since: its old dismissal no longer stands.
                unreportedDismissals.removeAll { id in
                    guard ui.contains(id) else { return false }
                    unreportedSet.remove(id)
                    return true
                }
            }
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

    /// Presentables the session's own commands took out of the UI whose dismissal the presenter has not reported
    /// yet, in order. A presenter that dies before reporting never will; a new one adopting the snapshot does not
    /// have them, so the sync reports them to the tree itself.
    private(set) var unreportedDismissals: [PresentableID] = []
    private var unreportedSet: Set<PresentableID> = []

    /// The presenter reported `id` dismissed.
    func dismissalReported(_ id: PresentableID) {
        guard unreportedSet.remove(id) != nil else { return }
        unreportedDismissals.removeAll { $0 == id }
    }

    /// Whether the session's commands removed presentables that no presenter reported dismissed yet.
    var hasUnreportedDismissals: Bool { !unreportedDismissals.isEmpty }

    /// Takes the dismissals nobody reported.
    func takeUnreportedDismissals() -> [PresentableID] {
        defer {
            unreportedDismissals = []
            unreportedSet = []
        }
        return unreportedDismissals
    }

    /// The commands after `lastSeq`, if the outbox still holds all of them.
    func replay(after lastSeq: UInt64) -> [CommandMessage]? {
        guard lastSeq <= seq else { return nil }
        if lastSeq == seq { return [] }
        guard let first = outbox.first, first.seq <= lastSeq + 1 else { return nil }
        return outbox.filter { $0.seq > lastSeq }
    }
}

extension NavigationCommand {
    /// Whether the command may put screens (back) into the UI.
    fileprivate var addsScreens: Bool {
        switch self {
        case .setRoot, .push, .setStack, .present, .setTabs, .showMaster, .showDetail: return true
        case .pop, .popToRoot, .dismiss, .selectTab: return false
        }
    }
}
