internal import FlowCore
internal import FlowWire

/// One session: a flow tree, the UI its commands build, and the sequenced command stream to its presenter.
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
final class Session {
    /// A remote stepper attachment and the stepper process it is assigned to: what an `ATTACH` says that the tree's
    /// attachment does not (its stepper, coordinator and flags stay the tree's, not repeated here per attachment).
    struct RemoteAttachment {
        // In this order, the one-byte fields fill the context's padding.
        let presentable: PresentableID
        let kind: String
        let context: JSONValue
        let role: StepperAttachment.Role
        /// Whether the daemon carried out a step a stepper process sent for it (journaled with the step).
        var stepped = false
        var assignedTo: PeerAddress?
    }

    let id: String
    /// The application the session runs (its version's, for a daemon whose application is a file): its steps,
    /// vocabulary and flows, for the session's whole life.
    let application: any FlowApplication
    /// The application's version (``AppVersion/id``); `nil` for an application given as code.
    let appVersion: String?
    /// Whether the session's records do not name its version yet (a journal written before versions): the next
    /// compaction saves it as data, naming it, even with nothing else new.
    var appVersionUnrecorded = false
    /// How its records number a composite's steppers: `wholeComposites` for one an older flowd journaled and this one
    /// journaled nothing for yet (``DaemonCore/journal(_:of:)`` marks the change first).
    var numbering = AttachmentNumbering.compositeLeaves
    var machine: FlowCoordinatorStateMachine
    /// The UI as the session's commands (and the presenter's own user navigation) built it: what a snapshot sends.
    /// A restored session's is read from its saved bytes when first used (``SessionUI``).
    var ui: PresentationModel {
        // A borrow, not a getter: `session.ui.contains(id)` would copy the model (its storage's references) out of
        // the class for a call the optimizer cannot see into.
        _read {
            readUnreadUI()
            yield uiModel
        }
        _modify {
            readUnreadUI()
            knownInUI = nil
            yield &uiModel
        }
        set {
            unreadUI = nil
            knownInUI = nil
            uiModel = newValue
        }
    }
    private var uiModel = PresentationModel()
    /// A presentable the UI was found to hold and no change took out since (``uiContains(_:)``): the tree asks about
    /// the same target, a flow's root, for most commands, and the answer then costs no lookup.
    private var knownInUI: PresentableID?
    /// A restored session's saved UI, until first used.
    private var unreadUI: ArraySlice<UInt8>?
    /// That UI's screens and bytes as its `state` record's `usage` gave them (read only while ``unreadUI`` is set).
    var unreadUISize: (screens: Int, bytes: Int)?
    /// The sequenced commands: the last sequence number, the outbox for replay, those not carried out yet.
    private var commands: CommandStream
    /// The sequence number of the last command.
    var seq: UInt64 { commands.seq }
    /// The index of what each peer holds across the sessions, kept as the host and the attachments change.
    private let holdings: PeerHoldings
    /// The presenter hosting this session.
    var host: PeerAddress? {
        didSet { holdings.hostChanged(session: id, from: oldValue, to: host) }
    }
    /// The highest sequence number the host acknowledged.
    var ackedSeq: UInt64 = 0
    /// The remote attachments; changed through ``addRemote(_:_:)``, ``assign(_:to:)`` and ``removeRemote(_:)``.
    private(set) var remoteAttachments: [AttachmentID: RemoteAttachment] = [:]
    /// The attachments of steppers running in the daemon (the tree holds what they are).
    var localAttachments: Set<AttachmentID> = []
    /// Adaptations running outside the tree, run again after a recovery if they had not completed.
    var pendingAdapts: [AdaptRequestID: AdaptRequest] = [:]
    /// When the session last changed or lost its presenter, on the daemon's clock; and the entry that stands for it
    /// in the idle deadlines, if one does (``IdleDeadlines``).
    var lastActive: UInt64
    var idleEntry: UInt64?
    /// The entry that stands for it in the hibernation deadlines, if one does.
    var hibernationEntry: UInt64?
    /// Whether nothing was journaled for it since it was created (or made again from its `session` record): made
    /// again by coordinating its root, it is the same session, so a hibernation keeps no bytes for it.
    var unchangedSinceCreation = false
    /// Whether the session was found at its bounds when a step last came (``DaemonCore/admitsSteps(_:)``).
    var full = false

    init(
        id: String, application: any FlowApplication, appVersion: String?, outbox: OutboxBounds,
        holdings: PeerHoldings, now: UInt64, machine: FlowCoordinatorStateMachine = FlowCoordinatorStateMachine()
    ) {
        self.id = id
        self.application = application
        self.appVersion = appVersion
        self.commands = CommandStream(bounds: outbox)
        self.holdings = holdings
        self.lastActive = now
        self.machine = machine
        observeCommands()
    }

    /// A new remote attachment, not assigned yet.
    func addRemote(_ id: AttachmentID, _ attachment: RemoteAttachment) {
        if let old = remoteAttachments[id] { end(id, old) }
        var waiting = attachment
        waiting.assignedTo = nil
        remoteAttachments[id] = waiting
        holdings.attachmentAdded(key(id), kind: attachment.kind)
        if let peer = attachment.assignedTo { assign(id, to: peer) }
    }

    /// Assigns a remote attachment to a stepper process, or (`nil`) leaves it waiting for one.
    func assign(_ id: AttachmentID, to peer: PeerAddress?) {
        guard let attachment = remoteAttachments[id], attachment.assignedTo != peer else { return }
        remoteAttachments[id]!.assignedTo = peer
        holdings.attachmentChanged(key(id), kind: attachment.kind, from: attachment.assignedTo, to: peer)
    }

    /// A stepper process took a step for the attachment: a later `ATTACH` of it is `resumed`.
    func markStepped(_ id: AttachmentID) {
        // Read and written in place, once: a `modify` through the optional moved the attachment out and back.
        guard let index = remoteAttachments.index(forKey: id), !remoteAttachments.values[index].stepped else { return }
        remoteAttachments.values[index].stepped = true
    }

    /// Ends a remote attachment; returns it if it was there.
    func removeRemote(_ id: AttachmentID) -> RemoteAttachment? {
        guard let attachment = remoteAttachments.removeValue(forKey: id) else { return nil }
        end(id, attachment)
        return attachment
    }

    private func end(_ id: AttachmentID, _ attachment: RemoteAttachment) {
        holdings.attachmentChanged(key(id), kind: attachment.kind, from: attachment.assignedTo, to: nil, ended: true)
    }

    private func key(_ id: AttachmentID) -> PeerHoldings.AttachmentKey { .init(session: self.id, attachment: id) }

    /// The session `state` saved, its flows and steppers made again through `restoration`; no host, and the remote
    /// attachments not assigned to any stepper process yet.
    convenience init(
        id: String, application: any FlowApplication, appVersion: String?, outbox: OutboxBounds,
        holdings: PeerHoldings, now: UInt64, restoring state: SessionState, with restoration: FlowRestoration
    ) throws(RestorationError) {
        self.init(
            id: id, application: application, appVersion: appVersion, outbox: outbox, holdings: holdings, now: now,
            machine: try FlowCoordinatorStateMachine(restoring: state.tree, with: restoration))
        switch state.savedUI {
        case .model(let model): uiModel = model
        case .unread(let saved): unreadUI = saved
        }
        commands = CommandStream(bounds: outbox, seq: state.seq, saved: state.outbox)
        for awaited in state.awaitedReports { awaitedDismissalReports[awaited.presentable] = awaited.count }
        let remote = Dictionary(uniqueKeysWithValues: state.remoteAttachments.map { (AttachmentID($0.attachment), $0) })
        for attachment in machine.liveAttachments {
            if let stepper = attachment.stepper as? RemoteStepper {
                let saved = remote[attachment.id]
                addRemote(
                    attachment.id,
                    RemoteAttachment(
                        presentable: attachment.presentable, kind: stepper.kind, context: saved?.context ?? .null,
                        role: attachment.role, stepped: saved?.stepped ?? false))
            } else {
                localAttachments.insert(attachment.id)
            }
        }
    }

    /// Gives back the room the burst of commands that made the session left unused in its UI model and outbox: an
    /// idle session holds no spare capacity (docs/PERFORMANCE.md, issue 11).
    func trimAfterCreation() {
        uiModel.trim()
        commands.trim()
    }

    /// How many screens the UI holds and what they count against `daemon.max_session_ui_bytes`
    /// (``PresentationModel/estimatedBytes``, kept by the model as its screens come and go): read in place, at once,
    /// where `ui`'s getter would copy the model (a step's bounds check reads both).
    var uiSize: (screens: Int, bytes: Int) {
        readUnreadUI()
        return (uiModel.count, uiModel.estimatedBytes)
    }

    /// What the session holds against its bounds, from the counts it keeps (nothing is walked). `readingUI`: a UI
    /// still its saved bytes is read first (``uiSize``); else such a session's screens and bytes are its record's
    /// (``unreadUISize``), or 0 when that did not say.
    func usage(readingUI: Bool) -> SessionUsage {
        let ui = readingUI || unreadUI == nil ? uiSize : unreadUISize ?? (screens: 0, bytes: 0)
        return SessionUsage(
            screens: ui.screens, uiBytes: ui.bytes, attachments: remoteAttachments.count + localAttachments.count,
            outboxCommands: commands.outboxCount, outboxBytes: commands.outboxBytes)
    }

    /// Whether the UI is still its saved bytes (restored, not used since).
    var uiIsUnread: Bool { unreadUI != nil }

    /// What the session holds against its bounds without reading its UI; `nil` when its UI is unread and its record
    /// did not say its size.
    var knownUsage: SessionUsage? { unreadUI != nil && unreadUISize == nil ? nil : usage(readingUI: false) }

    private func readUnreadUI() {
        guard let saved = unreadUI else { return }
        unreadUI = nil
        knownInUI = nil
        uiModel = SessionUI.unread(saved).model
    }

    /// The tree hears at once what a command took out of the UI (docs/SEMANTICS.md D18).
    private func observeCommands() {
        machine.commandObserver = { [unowned self] command in self.sequence(command) }
        machine.uiContains = { [unowned self] id in self.uiContains(id) }
    }

    /// Whether the UI holds `id`, for the tree's held-commands check (D20), which asks it for every command that
    /// builds inside its target: the last target found stays known until a change takes it out.
    private func uiContains(_ id: PresentableID) -> Bool {
        readUnreadUI()
        if id == knownInUI { return true }
        guard uiModel.contains(id) else { return false }
        knownInUI = id
        return true
    }

    /// The session's live state as data.
    ///
    /// - Throws: ``RestorationError`` when the tree is not at rest or holds a flow or stepper `restoration` cannot
    ///   save.
    func save(with restoration: FlowRestoration) throws(RestorationError) -> SessionState {
        SessionState(
            tree: try machine.save(with: restoration), savedUI: unreadUI.map(SessionUI.unread) ?? .model(uiModel),
            seq: seq, outbox: commands.saved(session: id),
            awaitedReports: awaitedDismissalReports.keys.sorted().map {
                SessionState.AwaitedReports(presentable: $0, count: awaitedDismissalReports[$0]!)
            },
            remoteAttachments: remoteAttachments.keys.sorted().map { id in
                let remote = remoteAttachments[id]!
                return SessionState.RemoteAttachment(
                    attachment: id.rawValue, context: remote.context, stepped: remote.stepped)
            }
        )
    }

    /// Sequences a command as the tree outputs it: applies it to the UI model and keeps it for replay; returns the
    /// presentables it took out of the UI. ``takeSequenced(_:)`` hands the message over when its action is carried out.
    private func sequence(_ command: NavigationCommand) -> [PresentableID] {
        var rejection: PresentationError?
        var removed: [PresentableID] = []
        readUnreadUI()
        do {
            // What became visible is the presenter's to report; the session needs only what left. In place, not
            // through `ui`: a command forgets ``knownInUI`` only when it took that presentable out.
            removed = try uiModel.carryOut(command)
        } catch {
            rejection = error
            knownInUI = nil
        }
        if let known = knownInUI, removed.contains(known) { knownInUI = nil }
        for id in removed { awaitedDismissalReports[id, default: 0] += 1 }
        if awaitedDismissalReports.count > 64 + 2 * uiModel.count {
            // Only what is back in the UI needs its report told apart from a person's dismissal.
            awaitedDismissalReports = awaitedDismissalReports.filter { ui.contains($0.key) }
        }
        commands.append(command, rejection: rejection)
        return removed
    }

    /// The oldest command sequenced and not yet carried out (`command`, as the tree's action carries it) as its
    /// message, with why the UI model refused it if it did.
    func takeSequenced(_ command: NavigationCommand) -> (message: CommandMessage, rejection: PresentationError?) {
        let (seq, rejection) = commands.take()
        return (CommandMessage(session: id, seq: seq, command: command), rejection)
    }

    /// How many dismissals the presenter will report for presentables the session's own commands took out of the UI
    /// (the tree heard of them already): a presenter reports every dismissal, and one of these must not end a
    /// presentable shown again since under the same ID.
    private var awaitedDismissalReports: [PresentableID: Int] = [:]

    /// The presenter reported `id` dismissed: whether that is news for the tree (a person removed it) rather than
    /// the report of a dismissal the session's own command made.
    func dismissalReported(_ id: PresentableID) -> Bool {
        if let awaited = awaitedDismissalReports[id] {
            awaitedDismissalReports[id] = awaited > 1 ? awaited - 1 : nil
            return false
        }
        return ui.contains(id)
    }

    /// A person's dismissal took these out of the UI, parent first: the presenter reports the ones under `id` too.
    func awaitReports(ofRemoved removed: [PresentableID], under id: PresentableID) {
        for removedID in removed where removedID != id { awaitedDismissalReports[removedID, default: 0] += 1 }
    }

    /// Whether the presenter is still to report dismissals the session's commands made.
    var awaitsDismissalReports: Bool { !awaitedDismissalReports.isEmpty }

    /// A presenter adopted a snapshot: it reports nothing about commands before it.
    func snapshotAdopted() { awaitedDismissalReports = [:] }

    /// The commands after `lastSeq`, if the outbox still holds all of them.
    func replay(after lastSeq: UInt64) -> [CommandMessage]? { commands.replay(after: lastSeq, session: id) }
}
