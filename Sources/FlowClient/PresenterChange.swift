public import FlowCore
public import FlowWire

/// One change of a presenter's UI: what caused it, the model after it, and what was reported to the daemon.
public struct PresenterChange: Sendable, Hashable {
    /// What changed the UI.
    public enum Cause: Sendable, Hashable {
        /// Navigation commands from the daemon, applied in this order as one batch (each exactly once).
        case commands([CommandMessage])
        /// A `SNAPSHOT` replaced the whole UI; its `seq` now counts as applied.
        case snapshot(seq: UInt64)
        /// A person's operation.
        case userOperation(PresenterUserOperation)
        /// The daemon ended the session (an operator's `END_SESSION`: the notice `sessionEnded`, docs/PROTOCOL.md
        /// §4). The model is as the empty `SNAPSHOT` before the notice left it, and `lastSeq` is 0: this presenter
        /// hosts nothing, and its next `SYNC` (after a reconnection) asks for the ID afresh.
        case sessionEnded
    }

    /// What changed the UI.
    public var cause: Cause
    /// The UI after the change: draw this.
    public var model: PresentationModel
    /// The reports the change made, in order (what was sent in `REPORT`).
    public var reports: [PresentableReport]
    /// Commands of the batch that could not be carried out (the model ignored them).
    public var rejected: [PresentationUpdate.Rejection]
    /// The last command sequence number applied.
    public var lastSeq: UInt64
}
