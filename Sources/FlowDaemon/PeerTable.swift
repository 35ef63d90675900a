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
    /// The stepper processes serving each kind: choosing one for an attachment costs the processes of its kind, not
    /// every peer (presenters are most of them).
    private var servers: [String: Set<PeerAddress>] = [:]
    private var lastNumber = 0

    subscript(address: PeerAddress) -> DaemonCore.Peer? { byAddress[address] }

    /// Every peer, in no particular order.
    var all: Dictionary<PeerAddress, DaemonCore.Peer>.Values { byAddress.values }

    /// Every peer in the order they joined (`p2` before `p10`): the order in which they are checked and forgotten.
    var inJoinOrder: [DaemonCore.Peer] { byAddress.values.sorted { Self.joinedBefore($0, $1) } }

    /// Whether `lhs` joined before `rhs`: their IDs' numbers compared (`p2` before `p10`).
    static func joinedBefore(_ lhs: DaemonCore.Peer, _ rhs: DaemonCore.Peer) -> Bool {
        lhs.id.count != rhs.id.count ? lhs.id.count < rhs.id.count : lhs.id < rhs.id
    }

    /// How many peers of each role are connected.
    var counts: [PeerRole: Int] { Dictionary(grouping: byAddress.values, by: \.role).mapValues(\.count) }

    /// The kinds some connected stepper process serves.
    var servedKinds: Dictionary<String, Set<PeerAddress>>.Keys { servers.keys }

    /// The names of the stepper processes connected, by the kinds they serve.
    var stepperNames: [String: Set<String>] {
        servers.mapValues { addresses in Set(addresses.compactMap { byAddress[$0]?.hello.name }) }
    }

    /// The ID for a new peer.
    mutating func nextID() -> String {
        lastNumber += 1
        return "p\(lastNumber)"
    }

    /// Adds a peer, or replaces the one at its address.
    mutating func insert(_ peer: DaemonCore.Peer) {
        if let old = byAddress.updateValue(peer, forKey: peer.address) { unindex(old) }
        guard peer.role == .stepper else { return }
        for kind in peer.hello.serves { servers[kind, default: []].insert(peer.address) }
    }

    /// Forgets a peer; returns it if it was connected.
    mutating func remove(_ address: PeerAddress) -> DaemonCore.Peer? {
        guard let peer = byAddress.removeValue(forKey: address) else { return nil }
        unindex(peer)
        return peer
    }

    private mutating func unindex(_ peer: DaemonCore.Peer) {
        guard peer.role == .stepper else { return }
        for kind in peer.hello.serves {
            servers[kind]?.remove(peer.address)
            if servers[kind]?.isEmpty == true { servers[kind] = nil }
        }
    }

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

    /// The stepper process serving `kind` (and passing `isEligible`) that work of that kind goes to (PROTOCOL §5):
    /// `preferred` when it is one, else the one with the least `load` (what it holds: attachments, or questions
    /// asked), ties to the name that sorts first, then the earliest connection; deterministic, so a test and a
    /// replay see the same choice. Costs the processes serving `kind`, each `load` asked once.
    func stepper(
        serving kind: String, preferring preferred: PeerAddress?,
        where isEligible: (DaemonCore.Peer) -> Bool = { _ in true }, load: (PeerAddress) -> Int
    ) -> DaemonCore.Peer? {
        guard let addresses = servers[kind] else { return nil }
        if let preferred, addresses.contains(preferred), let peer = byAddress[preferred], isEligible(peer) {
            return peer
        }
        var best: (peer: DaemonCore.Peer, load: Int)?
        for address in addresses {
            guard let peer = byAddress[address], isEligible(peer) else { continue }
            let held = load(address)
            if let found = best {
                guard held <= found.load else { continue }
                if held == found.load {
                    if found.peer.hello.name < peer.hello.name { continue }
                    if found.peer.hello.name == peer.hello.name, Self.joinedBefore(found.peer, peer) { continue }
                }
            }
            best = (peer, held)
        }
        return best?.peer
    }
}
