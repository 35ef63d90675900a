internal import FlowCore
internal import FlowWire

/// A session's live state as data: what a snapshot's `state` record holds instead of the session's history
/// (docs/RELIABILITY.md, "State snapshots"). Restoring it gives the session that was saved: the same tree, UI model,
/// sequence number, outbox and awaited dismissal reports; the presenter and stepper processes are not part of it
/// (they reconnect).
struct SessionState: Codable, Hashable, Sendable {
    /// A remote attachment's context and whether a stepper process stepped for it (`ATTACH.resumed`).
    struct RemoteAttachment: Codable, Hashable, Sendable {
        /// The attachment's number.
        var attachment: Int
        var context: JSONValue
        var stepped: Bool
    }

    /// Dismissal reports the presenter still owes for one presentable the session's commands removed.
    struct AwaitedReports: Codable, Hashable, Sendable {
        var presentable: PresentableID
        var count: Int
    }

    var tree: SavedFlowTree
    /// The UI model, or a restored state's saved bytes of it not read yet.
    var savedUI: SessionUI
    var seq: UInt64
    /// The outbox, oldest first.
    var outbox: [CommandMessage]
    /// In presentable order.
    var awaitedReports: [AwaitedReports]
    /// In attachment order.
    var remoteAttachments: [RemoteAttachment]

    /// The UI model (read from its saved bytes if it was not yet).
    var ui: PresentationModel {
        get { savedUI.model }
        set { savedUI = .model(newValue) }
    }

    private enum CodingKeys: String, CodingKey {
        case tree, savedUI = "ui", seq, outbox, awaitedReports, remoteAttachments
    }
}
