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
        /// How long the peer may stay silent before it counts as dead.
        let livenessMs: UInt64
        var lastHeard: UInt64
        var nextHeartbeat: UInt64
        /// Which insertion into the ``PeerTable`` this is: a `HELLO` again at the same address makes a new one, so the
        /// table's deadlines tell the peer they were made for from its successor.
        fileprivate(set) var generation: UInt64 = 0

        init(
            address: PeerAddress, id: String, hello: Hello, identity: AllowedClient?, userID: String?,
            livenessMs: UInt64, lastHeard: UInt64, nextHeartbeat: UInt64
        ) {
            joined = Joined(address: address, id: id, hello: hello, identity: identity, userID: userID)
            self.livenessMs = livenessMs
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
        /// When the peer counts as dead unless heard from before.
        var expiry: UInt64 { lastHeard + livenessMs }
    }
}

/// The connected peers by address, and the IDs they are known by (`p1`, `p2`, … in the order they joined).
///
/// Indexed so that what a message, a `HELLO` and a tick do costs the peers concerned, not every peer: the stepper
/// processes by the kinds they serve, the presenters and stepper processes by name (whom a `HELLO` replaces), and
/// the deadlines of heartbeats and liveness.
struct PeerTable {
    /// A client as a `HELLO` names it: its role and name.
    private struct Name: Hashable {
        let role: PeerRole
        let name: String
    }

    private var byAddress: [PeerAddress: DaemonCore.Peer] = [:]
    /// The stepper processes serving each kind: choosing one for an attachment costs the processes of its kind, not
    /// every peer (presenters are most of them).
    private var servers: [String: Set<PeerAddress>] = [:]
    /// The presenters and stepper processes by name (operators are not replaced, so not indexed).
    private var byName: [Name: Set<PeerAddress>] = [:]
    /// When each peer is due its next heartbeat, and when it counts as dead unless heard from before (an entry is
    /// checked when it comes due: a peer heard since is set again at its expiry then).
    private var heartbeats = DeadlineHeap<PeerAddress>()
    private var expiries = DeadlineHeap<PeerAddress>()
    private var lastNumber = 0
    private var lastGeneration: UInt64 = 0

    /// How many peers of each role are connected (a role with none is absent).
    private(set) var counts: [PeerRole: Int] = [:]

    subscript(address: PeerAddress) -> DaemonCore.Peer? { byAddress[address] }

    /// Every peer, in no particular order.
    var all: Dictionary<PeerAddress, DaemonCore.Peer>.Values { byAddress.values }

    /// Every peer in the order they joined (`p2` before `p10`): the order in which they are checked and forgotten.
    var inJoinOrder: [DaemonCore.Peer] { byAddress.values.sorted { Self.joinedBefore($0, $1) } }

    /// Whether `lhs` joined before `rhs`: their IDs' numbers compared (`p2` before `p10`).
    static func joinedBefore(_ lhs: DaemonCore.Peer, _ rhs: DaemonCore.Peer) -> Bool {
        lhs.id.count != rhs.id.count ? lhs.id.count < rhs.id.count : lhs.id < rhs.id
    }

    /// The kinds some connected stepper process serves.
    var servedKinds: Dictionary<String, Set<PeerAddress>>.Keys { servers.keys }

    /// The earliest heartbeat or expiry of a peer, if any peer is connected; may be early (``DeadlineHeap``).
    var nextDeadline: UInt64? {
        switch (heartbeats.next, expiries.next) {
        case let (heartbeat?, expiry?): return min(heartbeat, expiry)
        case let (heartbeat, expiry): return heartbeat ?? expiry
        }
    }

    /// How many deadlines wait, for tests: two per peer, plus those of peers lost or heard since they were set.
    var deadlineCount: Int { heartbeats.count + expiries.count }

    /// The ID for a new peer.
    mutating func nextID() -> String {
        lastNumber += 1
        return "p\(lastNumber)"
    }

    /// Adds a peer, or replaces the one at its address.
    mutating func insert(_ peer: DaemonCore.Peer) {
        var peer = peer
        lastGeneration += 1
        peer.generation = lastGeneration
        if let old = byAddress.updateValue(peer, forKey: peer.address) { unindex(old) }
        counts[peer.role, default: 0] += 1
        heartbeats.insert(peer.nextHeartbeat, for: peer.address, serial: peer.generation)
        expiries.insert(peer.expiry, for: peer.address, serial: peer.generation)
        if peer.role != .operator {
            byName[Name(role: peer.role, name: peer.hello.name), default: []].insert(peer.address)
        }
        guard peer.role == .stepper else { return }
        for kind in peer.hello.serves { servers[kind, default: []].insert(peer.address) }
    }

    /// Forgets a peer; returns it if it was connected. Its deadlines are dropped when they come due.
    mutating func remove(_ address: PeerAddress) -> DaemonCore.Peer? {
        guard let peer = byAddress.removeValue(forKey: address) else { return nil }
        unindex(peer)
        return peer
    }

    private mutating func unindex(_ peer: DaemonCore.Peer) {
        counts[peer.role, default: 0] -= 1
        if counts[peer.role] == 0 { counts[peer.role] = nil }
        if peer.role != .operator {
            let name = Name(role: peer.role, name: peer.hello.name)
            byName[name]?.remove(peer.address)
            if byName[name]?.isEmpty == true { byName[name] = nil }
        }
        guard peer.role == .stepper else { return }
        for kind in peer.hello.serves {
            servers[kind]?.remove(peer.address)
            if servers[kind]?.isEmpty == true { servers[kind] = nil }
        }
    }

    /// The peer at `address` was heard from (any message is a sign of life); returns it, if it is connected.
    ///
    /// Every message comes here: the peer found by index once (the message's handling needs it too) and written in
    /// place only when the millisecond changed, since a `modify` through the address hashes it again. Its expiry
    /// entry stays where it was: it is found to have moved when it comes due.
    mutating func heard(_ address: PeerAddress, at now: UInt64) -> DaemonCore.Peer? {
        guard let index = byAddress.index(forKey: address) else { return nil }
        if byAddress.values[index].lastHeard != now { byAddress.values[index].lastHeard = now }
        return byAddress.values[index]
    }

    /// The peers silent since before `heardUntil` (their ``DaemonCore/Peer/expiry`` is earlier), in join order,
    /// for the caller to forget. Costs the entries due: one heard since is set again at its expiry now.
    mutating func silent(before heardUntil: UInt64) -> [DaemonCore.Peer] {
        var silent: [DaemonCore.Peer] = []
        while let entry = expiries.popFirst(before: heardUntil) {
            guard let peer = byAddress[entry.key], peer.generation == entry.serial else { continue }
            if peer.expiry < heardUntil {
                silent.append(peer)
            } else {
                expiries.insert(peer.expiry, for: peer.address, serial: peer.generation)
            }
        }
        return silent.sorted { Self.joinedBefore($0, $1) }
    }

    /// The peers due a heartbeat at `now`, in join order, each due its next one at `next` from here on (one
    /// heartbeat per due time, however late the tick). Costs the entries due.
    mutating func takeHeartbeatsDue(at now: UInt64, next: UInt64) -> [DaemonCore.Peer] {
        var due: [DaemonCore.Peer] = []
        while let entry = heartbeats.popFirst(before: now + 1) {
            guard let index = byAddress.index(forKey: entry.key) else { continue }
            let peer = byAddress.values[index]
            guard peer.generation == entry.serial, peer.nextHeartbeat == entry.deadline else { continue }
            byAddress.values[index].nextHeartbeat = next
            heartbeats.insert(next, for: peer.address, serial: peer.generation)
            due.append(peer)
        }
        return due.sorted { Self.joinedBefore($0, $1) }
    }

    /// Other connections of the client that says `hello` at `address` (same role, name and key), which it replaces.
    /// Operators hold nothing, so several may share a name.
    func replaced(by hello: Hello, at address: PeerAddress, userID: String?) -> [PeerAddress] {
        guard hello.role != .operator, let named = byName[Name(role: hello.role, name: hello.name)] else { return [] }
        return named.filter { other in
            guard other != address, let peer = byAddress[other] else { return false }
            return peer.userID == userID
        }.sorted()
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
