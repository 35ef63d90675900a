internal import FlowWire

extension DaemonCore {
    /// A connected peer: what it said in `HELLO` and when it was last heard.
    struct Peer {
        /// What the peer joined with, in one immutable object: every message copies its peer, and a copy retains
        /// this one reference rather than each string and array of the `HELLO` and the allow-list entry.
        private final class Joined {
            let address: PeerAddress
            let id: String
            let hello: Hello
            let identity: AllowedClient?
            let userID: String?

            init(address: PeerAddress, id: String, hello: Hello, identity: AllowedClient?, userID: String?) {
                self.address = address
                self.id = id
                self.hello = hello
                self.identity = identity
                self.userID = userID
            }
        }

        private let joined: Joined
        var lastHeard: UInt64
        var nextHeartbeat: UInt64

        init(
            address: PeerAddress, id: String, hello: Hello, identity: AllowedClient?, userID: String?,
            lastHeard: UInt64, nextHeartbeat: UInt64
        ) {
            joined = Joined(address: address, id: id, hello: hello, identity: identity, userID: userID)
            self.lastHeard = lastHeard
            self.nextHeartbeat = nextHeartbeat
        }

        var address: PeerAddress { joined.address }
        var id: String { joined.id }
        var hello: Hello { joined.hello }
        /// The allow-list entry of the peer's key (with an ``AccessPolicy``), which its `HELLO` matched.
        var identity: AllowedClient? { joined.identity }
        /// The connection's `User-Id` (its key, Z85) when it said `HELLO`: every later message must carry the same.
        var userID: String? { joined.userID }
        var role: PeerRole { joined.hello.role }
    }
}

/// The connected peers by address, and the IDs they are known by (`p1`, `p2`, … in the order they joined).
struct PeerTable {
    private var byAddress: [PeerAddress: DaemonCore.Peer] = [:]
    private var lastNumber = 0

    subscript(address: PeerAddress) -> DaemonCore.Peer? { byAddress[address] }

    /// Every peer, in no particular order.
    var all: Dictionary<PeerAddress, DaemonCore.Peer>.Values { byAddress.values }

    /// Every peer in the order they joined (`p2` before `p10`): the order in which they are checked and forgotten.
    var inJoinOrder: [DaemonCore.Peer] {
        byAddress.values.sorted { $0.id.count != $1.id.count ? $0.id.count < $1.id.count : $0.id < $1.id }
    }

    /// How many peers of each role are connected.
    var counts: [PeerRole: Int] { Dictionary(grouping: byAddress.values, by: \.role).mapValues(\.count) }

    /// The ID for a new peer.
    mutating func nextID() -> String {
        lastNumber += 1
        return "p\(lastNumber)"
    }

    /// Adds a peer, or replaces the one at its address.
    mutating func insert(_ peer: DaemonCore.Peer) { byAddress[peer.address] = peer }

    /// Forgets a peer; returns it if it was connected.
    mutating func remove(_ address: PeerAddress) -> DaemonCore.Peer? { byAddress.removeValue(forKey: address) }

    /// The peer at `address` was heard from (any message is a sign of life); returns it, if it is connected.
    ///
    /// Every message comes here: the peer found by index once (the message's handling needs it too) and written in
    /// place only when the millisecond changed, since a `modify` through the address hashes it again.
    mutating func heard(_ address: PeerAddress, at now: UInt64) -> DaemonCore.Peer? {
        guard let index = byAddress.index(forKey: address) else { return nil }
        if byAddress.values[index].lastHeard != now { byAddress.values[index].lastHeard = now }
        return byAddress.values[index]
    }

    /// The peer at `address` is due its next heartbeat at `next`.
    mutating func heartbeatSent(to address: PeerAddress, next: UInt64) { byAddress[address]?.nextHeartbeat = next }

    /// Other connections of the client that says `hello` at `address` (same role, name and key), which it replaces.
    /// Operators hold nothing, so several may share a name.
    func replaced(by hello: Hello, at address: PeerAddress, userID: String?) -> [PeerAddress] {
        byAddress.values.filter {
            $0.address != address && $0.role == hello.role && $0.role != .operator && $0.hello.name == hello.name
                && $0.userID == userID
        }.map(\.address).sorted { $0.routingID.lexicographicallyPrecedes($1.routingID) }
    }

    /// The stepper process serving `kind` (and passing `isEligible`) that work of that kind goes to: `preferred` when
    /// it is one, else the first by name and ID. One pass, no sort: a lost stepper's attachments ask it once each.
    func firstStepper(
        serving kind: String, preferring preferred: PeerAddress?,
        where isEligible: (DaemonCore.Peer) -> Bool = { _ in true }
    ) -> DaemonCore.Peer? {
        var first: DaemonCore.Peer?
        for peer in byAddress.values where peer.role == .stepper && peer.hello.serves.contains(kind) && isEligible(peer) {
            if peer.address == preferred { return peer }
            if let found = first, (found.hello.name, found.id) < (peer.hello.name, peer.id) { continue }
            first = peer
        }
        return first
    }
}
