@testable import FlowDaemon
import FlowWire
import TestFlows
import Testing

/// `PeerTable.firstStepper(serving:preferring:where:)`, the holder a stepper kind's work goes to, found in one pass:
/// the same one as the first of every peer serving the kind sorted with the preferred one first, then by name and
/// ID (what the daemon sorted before), over tables drawn from a seeded generator with shared names and kinds.
struct PeerTableTests {
    /// The choice the daemon made by sorting.
    private static func sortedFirst(
        _ table: PeerTable, kind: String, preferred: PeerAddress?, where isEligible: (DaemonCore.Peer) -> Bool
    ) -> PeerAddress? {
        table.all
            .filter { $0.role == .stepper && $0.hello.serves.contains(kind) }
            .sorted {
                ($0.address == preferred ? 0 : 1, $0.hello.name, $0.id)
                    < ($1.address == preferred ? 0 : 1, $1.hello.name, $1.id)
            }
            .first(where: isEligible)?.address
    }

    @Test func theFirstStepperIsTheOneSortingFirstWithThePreferredOneAhead() {
        var random = SplitMix64(seed: 0x5EED_F1A5)
        let kinds = ["movies", "login", "cast"]
        for round in 0..<300 {
            var table = PeerTable()
            let count = Int(random.next() % 40)
            for index in 0..<count {
                let roles: [PeerRole] = [.stepper, .stepper, .stepper, .presenter, .operator]
                let hello = Hello(
                    req: 1, role: roles[Int(random.next() % 5)], name: "s\(random.next() % 6)",
                    instance: "i\(index)", heartbeatMs: 1000, serves: kinds.filter { _ in random.next() % 2 == 0 },
                    adapts: random.next() % 3 == 0)
                table.insert(
                    DaemonCore.Peer(
                        address: PeerAddress([UInt8(index)]), id: table.nextID(), hello: hello, identity: nil,
                        userID: nil, lastHeard: 0, nextHeartbeat: 0))
            }
            let preferred = random.next() % 3 == 0 ? PeerAddress([UInt8(random.next() % 45)]) : nil
            for kind in kinds {
                #expect(
                    table.firstStepper(serving: kind, preferring: preferred)?.address
                        == Self.sortedFirst(table, kind: kind, preferred: preferred) { _ in true },
                    "round \(round), kind \(kind)")
                #expect(
                    table.firstStepper(serving: kind, preferring: preferred, where: \.hello.adapts)?.address
                        == Self.sortedFirst(table, kind: kind, preferred: preferred, where: \.hello.adapts),
                    "round \(round), kind \(kind), answering ADAPT")
            }
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
