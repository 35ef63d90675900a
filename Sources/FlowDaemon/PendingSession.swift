internal import FlowCore
internal import FlowWire

/// A session recovery found and has not made yet: one only created (its last record a `session` record), or one saved
/// as data (a `state` record with nothing after it), kept as its record's bytes with only their header read
/// (``StateRecordHeader``). What making it needs, and nothing of its flows. It is made, exactly as recovery makes it, on
/// first use
/// (``DaemonCore/session(_:)``); a made session idle long enough is turned back into one (``hibernation``) or in the background after start (``DaemonCore/makePendingSessions(limit:now:)``),
/// so that a restart with many idle sessions serves at once (docs/RELIABILITY.md, "Recovery").
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
struct PendingSession {
    /// How many pending sessions one turn of the I/O loop makes: a movie demo session takes ~100 µs to make, so a
    /// turn stays within a few milliseconds and steps and `HEALTH` keep being served (docs/RELIABILITY.md).
    static let madePerTurn = 32

    /// The bytes of `state` records one turn makes pending sessions from at most (the session that passes it is
    /// made): a stepped session's record grows with its outbox up to `daemon.outbox_bytes_limit` (1 MiB by
    /// default), and 32 such in one turn would hold the loop for seconds (docs/RELIABILITY.md, "Pending sessions").
    static let bytesMadePerTurn = 256 * 1024

    let id: String
    let application: any FlowApplication
    /// The application's version (``AppVersion/id``); `nil` for an application given as code.
    let appVersion: String?
    /// Whether its `session` record does not name its version (``Session/appVersionUnrecorded``).
    let appVersionUnrecorded: Bool
    /// When it was recovered, on the daemon's clock: its idle time counts from then, as a made session's does.
    var lastActive: UInt64
    /// The entry that stands for it in the idle deadlines (``IdleDeadlines``).
    var idleEntry: UInt64?
    /// Its `state` record's bytes, read when it is made; `nil` for a session only created. Its own array, out of the
    /// snapshot's payload (``JournalSnapshot/records(in:)``: copied, or the payload's own buffer when it is most of
    /// it), so the rest of the payload is freed after recovery; the journal log shares it as the session's record
    /// (``JournalLog``): keeping it costs no second copy.
    var savedState: [UInt8]?
    /// Set for a session hibernated (``DaemonCore/hibernate(_:)``), `nil` for one recovery found.
    var hibernation: Hibernation?
    /// How its records number a composite's steppers (``Session/numbering``).
    var numbering = AttachmentNumbering.compositeLeaves
    /// What it held against its bounds when it was saved (its `state` record's `usage`, or the made session's figures
    /// as it hibernated): `HEALTH`'s `session_usage_max` counts it without making it. `nil` when not known (only
    /// created, or a record written before the field).
    var usage: SessionUsage?

    /// What a hibernated session keeps beside its saved state: its remote attachments as the peer index holds them.
    /// They stay in the index while it sleeps, so a stepper's `HELLO` or loss and a `STEP` for one of them make it
    /// and find each attachment with the peer that holds it: nothing changes on the wire (no second `ATTACH`).
    struct Hibernation {
        struct Attachment {
            let id: AttachmentID
            let kind: String
            let assignedTo: PeerAddress?
        }

        let attachments: [Attachment]
        /// Its `SESSIONS` row as it was when it hibernated (nothing changes it while it sleeps: any change makes it),
        /// so that listing it does not make it; `nil` when its UI was still its saved bytes of unknown size (the row
        /// then makes it).
        var summary: SessionSummary?
    }
}
