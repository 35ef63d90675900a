@testable import FlowDaemon
import FlowWire
import TestFlows
import Testing

/// `PeerTable`'s indexes against a walk over every peer: the peers a tick finds silent and due a heartbeat (from the
/// deadline heaps), whom a `HELLO` replaces (from the names) and the counts by role, over tables drawn from a seeded
/// generator where peers join, say `HELLO` again at their address, are heard, leave and time passes.
struct PeerTableIndexTests {
    private static let roles: [PeerRole] = [.stepper, .stepper, .presenter, .presenter, .operator]

    private static func hello(_ random: inout SplitMix64, role: PeerRole) -> Hello {
        Hello(
            req: 1, role: role, name: "n\(random.next() % 5)", instance: "i", heartbeatMs: 100 * Int(1 + random.next() % 5),
            serves: role == .stepper ? ["movies"] : [])
    }

    @Test func aTickFindsTheSamePeersSilentAndDueAsAWalkOverEveryPeer() throws {
        var random = SplitMix64(seed: 0xDEAD_11FE)
        for round in 0..<200 {
            var table = PeerTable()
            var now: UInt64 = 0
            var ticks = 0
            for _ in 0..<(20 + Int(random.next() % 200)) {
                now += random.next() % 150
                let address = PeerAddress([UInt8(random.next() % 24)])
                switch random.next() % 10 {
                case 0...2:
                    // Joins, or says HELLO again at its address (a new peer there, with its old ID).
                    let hello = Self.hello(&random, role: Self.roles[Int(random.next() % 5)])
                    let id = table[address]?.id ?? table.nextID()
                    table.insert(
                        DaemonCore.Peer(
                            address: address, id: id, hello: hello, identity: nil, userID: nil,
                            livenessMs: UInt64(3 * hello.heartbeatMs), lastHeard: now, nextHeartbeat: now + 250))
                case 3:
                    _ = table.remove(address)
                case 4...6:
                    _ = table.heard(address, at: now)
                default:
                    // Judged up to a moment before now at times, as when the inbox was last read earlier.
                    let heardUntil = random.next() % 3 == 0 ? now - min(now, random.next() % 200) : now
                    let expectedSilent = table.inJoinOrder.filter { $0.expiry < heardUntil }.map(\.id)
                    let silent = table.silent(before: heardUntil)
                    #expect(silent.map(\.id) == expectedSilent, "round \(round), tick \(ticks)")
                    for peer in silent { _ = table.remove(peer.address) }
                    let expectedDue = table.inJoinOrder.filter { $0.nextHeartbeat <= now }.map(\.id)
                    #expect(
                        table.takeHeartbeatsDue(at: now, next: now + 250).map(\.id) == expectedDue,
                        "round \(round), tick \(ticks)")
                    #expect(table.all.allSatisfy { $0.nextHeartbeat > now }, "round \(round): every due one taken")
                    ticks += 1
                }
                // The next deadline is never later than the earliest due of any peer (it may be earlier).
                let earliest = table.all.map { min($0.nextHeartbeat, $0.expiry) }.min()
                if let earliest {
                    #expect(try #require(table.nextDeadline) <= earliest, "round \(round)")
                }
                #expect(
                    table.counts == Dictionary(grouping: table.all, by: \.role).mapValues(\.count), "round \(round)")
            }
            // Entries of peers lost or heard since are dropped as they come due: at most two a peer are left after a
            // tick far enough ahead that every deadline has passed.
            now += 10_000
            for peer in table.silent(before: now) { _ = table.remove(peer.address) }
            _ = table.takeHeartbeatsDue(at: now, next: now + 250)
            #expect(table.all.isEmpty, "round \(round): everyone silent by then")
            #expect(table.deadlineCount == 0, "round \(round)")
        }
    }

    @Test func aHelloReplacesTheSameRolesNameAndKeyAsAWalkOverEveryPeer() {
        var random = SplitMix64(seed: 0x4E11_0A6A)
        for round in 0..<300 {
            var table = PeerTable()
            for _ in 0..<Int(random.next() % 40) {
                let hello = Self.hello(&random, role: Self.roles[Int(random.next() % 5)])
                let address = PeerAddress([UInt8(random.next() % 30)])
                table.insert(
                    DaemonCore.Peer(
                        address: address, id: table[address]?.id ?? table.nextID(), hello: hello, identity: nil,
                        userID: random.next() % 2 == 0 ? "key\(random.next() % 2)" : nil, livenessMs: 300,
                        lastHeard: 0, nextHeartbeat: 0))
                if random.next() % 6 == 0 { _ = table.remove(PeerAddress([UInt8(random.next() % 30)])) }
            }
            let hello = Self.hello(&random, role: Self.roles[Int(random.next() % 5)])
            let address = PeerAddress([UInt8(random.next() % 32)])
            let userID = random.next() % 2 == 0 ? "key\(random.next() % 2)" : nil
            let expected = table.all.filter {
                $0.address != address && $0.role == hello.role && $0.role != .operator && $0.hello.name == hello.name
                    && $0.userID == userID
            }.map(\.address).sorted { $0.routingID.lexicographicallyPrecedes($1.routingID) }
            #expect(table.replaced(by: hello, at: address, userID: userID) == expected, "round \(round)")
        }
    }
}
