// The `OK` results of a presenter's requests (`docs/PROTOCOL.md` §6); `REPORT`'s is `{}`.

/// `SYNC`'s result: how the daemon brings the presenter up to date.
public struct SyncResult: WireResult, Hashable {
    /// How the presenter catches up.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// A `SNAPSHOT` follows.
        case snapshot
        /// The commands after the presenter's `last_seq` follow.
        case replay
    }

    /// The session's last command sequence number.
    public var seq: UInt64
    public var mode: Mode

    public init(seq: UInt64, mode: Mode) {
        self.seq = seq
        self.mode = mode
    }
}

/// `USER_ACTION`'s result.
public struct UserActionResult: WireResult, Hashable {
    /// How many stepper attachments the action was delivered to.
    public var delivered: Int

    public init(delivered: Int) { self.delivered = delivered }
}
