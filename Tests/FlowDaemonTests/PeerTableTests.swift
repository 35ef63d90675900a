@testable import FlowDaemon
import FlowWire
import TestFlows
import Testing

/// `PeerTable.stepper(serving:preferring:where:load:)`, the holder a stepper kind's work goes to, found in one pass
/// over the processes of the kind: the same one as the first of every peer serving the kind sorted with the preferred
/// one first, then by load, name and join order (`p2` before `p10`), over tables drawn from a seeded generator with
/// shared names, kinds and loads, peers replaced and removed.
struct PeerTableTests {
    /// The choice by sorting every peer.
    private static func sortedFirst(
        _ table: PeerTable, kind: String, preferred: PeerAddress?, load: [PeerAddress: Int],
        where isEligible: (DaemonCore.Peer) -> Bool
    ) -> PeerAddress? {
        func number(_ peer: DaemonCore.Peer) -> Int { Int(peer.id.dropFirst())! }
        return table.all
            .filter { $0.role == .stepper && $0.hello.serves.contains(kind) }
            .sorted {
                ($0.address == preferred ? 0 : 1, load[$0.address] ?? 0, $0.hello.name, number($0))
                    < ($1.address == preferred ? 0 : 1, load[$1.address] ?? 0, $1.hello.name, number($1))
            }
            .first(where: isEligible)?.address
    }

    @Test func theStepperChosenIsTheOneSortingFirstByLoadNameAndJoinOrderWithThePreferredOneAhead() {
        var random = SplitMix64(seed: 0x5EED_F1A5)
        let kinds = ["movies", "login", "cast"]
        for round in 0..<300 {
            var table = PeerTable()
            var load: [PeerAddress: Int] = [:]
            let count = Int(random.next() % 40)
            for index in 0..<count {
                let roles: [PeerRole] = [.stepper, .stepper, .stepper, .presenter, .operator]
                let hello = Hello(
                    req: 1, role: roles[Int(random.next() % 5)], name: "s\(random.next() % 6)",
                    instance: "i\(index)", heartbeatMs: 1000, serves: kinds.filter { _ in random.next() % 2 == 0 },
                    adapts: random.next() % 3 == 0)
                // Some land on an address already taken (a HELLO again replaces the peer there), some leave.
                let address = PeerAddress([UInt8(random.next() % 30)])
                table.insert(
                    DaemonCore.Peer(
                        address: address, id: table.nextID(), hello: hello, identity: nil,
                        userID: nil, livenessMs: 3000, lastHeard: 0, nextHeartbeat: 0))
                load[address] = Int(random.next() % 3)
                if random.next() % 6 == 0 { _ = table.remove(PeerAddress([UInt8(random.next() % 30)])) }
            }
            let preferred = random.next() % 3 == 0 ? PeerAddress([UInt8(random.next() % 35)]) : nil
            for kind in kinds {
                #expect(
                    table.stepper(serving: kind, preferring: preferred) { load[$0] ?? 0 }?.address
                        == Self.sortedFirst(table, kind: kind, preferred: preferred, load: load) { _ in true },
                    "round \(round), kind \(kind)")
                #expect(
                    table.stepper(serving: kind, preferring: preferred, where: \.hello.adapts) { load[$0] ?? 0 }?.address
                        == Self.sortedFirst(table, kind: kind, preferred: preferred, load: load, where: \.hello.adapts),
                    "round \(round), kind \(kind), answering ADAPT")
            }
            #expect(
                Set(table.servedKinds)
                    == Set(table.all.filter { $0.role == .stepper }.flatMap(\.hello.serves)), "round \(round)")
        }
    }

    /// A routing ID reads as two hex digits a byte: libzmq's `00 xx xx xx xx` keeps its zero, and two IDs that differ
    /// read differently.
    @Test func aPeerAddressReadsAsTwoHexDigitsAByte() {
        #expect(PeerAddress([0x00, 0x6b, 0x8b, 0x45, 0x67]).description == "006b8b4567")
        #expect(PeerAddress([0x01, 0x02]).description != PeerAddress([0x12]).description)
        #expect(PeerAddress([0xff, 0x0a]).description == "ff0a")
    }
}
