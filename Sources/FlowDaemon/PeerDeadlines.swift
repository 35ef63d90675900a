internal import HeapModule

/// When connected peers are next due a heartbeat and counted dead: two heaps of deadlines, so that a tick costs the
/// peers that are due, not every peer. An entry is left as it is when its peer is heard, replaced or lost;
/// ``PeerTable`` checks it against the peer when it comes out (as ``IdleDeadlines`` does for sessions), so a message
/// costs nothing here and ``next`` may be early (the tick it wakes finds nothing due).
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
struct PeerDeadlines {
    struct Entry: Comparable {
        let deadline: UInt64
        /// Tells the peer this entry was made for from a later one at the same address (``DaemonCore/Peer/generation``).
        let generation: UInt64
        let address: PeerAddress

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.generation) < (rhs.deadline, rhs.generation)
        }
    }

    private var heartbeats = Heap<Entry>()
    private var expiries = Heap<Entry>()

    /// The earliest deadline, if any.
    var next: UInt64? {
        switch (heartbeats.min?.deadline, expiries.min?.deadline) {
        case let (heartbeat?, expiry?): return min(heartbeat, expiry)
        case let (heartbeat, expiry): return heartbeat ?? expiry
        }
    }

    /// How many entries wait in both heaps (two per peer, plus those of peers lost or heard since).
    var count: Int { heartbeats.count + expiries.count }

    /// `peer` is due a heartbeat at its ``DaemonCore/Peer/nextHeartbeat``.
    mutating func watchHeartbeat(of peer: DaemonCore.Peer) {
        heartbeats.insert(Entry(deadline: peer.nextHeartbeat, generation: peer.generation, address: peer.address))
    }

    /// `peer` counts as dead after its ``DaemonCore/Peer/expiry``.
    mutating func watchExpiry(of peer: DaemonCore.Peer) {
        expiries.insert(Entry(deadline: peer.expiry, generation: peer.generation, address: peer.address))
    }

    /// The next heartbeat entry due at `now`, taken out.
    mutating func popHeartbeat(dueAt now: UInt64) -> Entry? {
        guard let first = heartbeats.min, first.deadline <= now else { return nil }
        return heartbeats.removeMin()
    }

    /// The next expiry entry before `heardUntil`, taken out.
    mutating func popExpiry(before heardUntil: UInt64) -> Entry? {
        guard let first = expiries.min, first.deadline < heardUntil else { return nil }
        return expiries.removeMin()
    }
}
