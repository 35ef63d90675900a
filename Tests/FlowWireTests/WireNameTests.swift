import FlowWire
import Testing

/// The name rules byte by byte (`docs/PROTOCOL.md` §2): each byte inside a short (small) and a long (heap) name, and
/// the lengths at the limits.
struct WireNameTests {
    private static let nameBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".utf8)

    @Test(arguments: [1, 20])
    func aNameTakesExactlyThePatternsBytes(_ padding: Int) {
        let pad = Array(repeating: UInt8(0x61), count: padding)
        for byte in UInt8.min...UInt8.max {
            let text = String(decoding: pad + [byte] + pad, as: UTF8.self)
            let inName = Self.nameBytes.contains(byte)
            #expect(WireProtocol.isValidName(text) == inName, "\(byte)")
            #expect(WireProtocol.isValidStepName(text) == (inName || byte == 0x3A), "\(byte)")
            #expect(WireProtocol.isValidKind(text) == (inName || byte == 0x3A), "\(byte)")
        }
    }

    @Test func namesHaveOneToTheirLimitsBytes() {
        #expect(!WireProtocol.isValidName(""))
        #expect(!WireProtocol.isValidStepName(""))
        #expect(WireProtocol.isValidName(String(repeating: "Z", count: 64)))
        #expect(!WireProtocol.isValidName(String(repeating: "Z", count: 65)))
        #expect(WireProtocol.isValidStepName(String(repeating: "z:", count: 64)))
        #expect(!WireProtocol.isValidStepName(String(repeating: "z:", count: 64) + "z"))
        #expect(!WireProtocol.isValidName("é"))
    }
}
