import FlowWire
import Testing

/// How integer fields and optional fields are read, as docs/PROTOCOL.md §2 states it; a foreign client written in C
/// found both unstated (a fraction a double cannot tell from a whole number, and `null` for an optional field).
struct NumberAndNullReadingTests {
    private func req(_ literal: String) throws -> UInt64? {
        try WireCodec().decode(frames("HEALTH", #"{"req": \#(literal)}"#), from: .client).req
    }

    @Test(arguments: [("6.0", 6), ("6e0", 6), ("60e-1", 6), ("0.6e1", 6), ("-0", 0), ("-0.0", 0)] as [(String, UInt64)])
    func aWholeNumberWrittenAnyWayIsThatInteger(_ literal: String, _ value: UInt64) throws {
        #expect(try req(literal) == value)
    }

    @Test(arguments: ["7.5", "1e-5", "2.0000000000000004"])
    func aFractionIsMalformed(_ literal: String) throws {
        let error = try #require(decodingError(frames("HEALTH", #"{"req": \#(literal)}"#)))
        #expect(error.code == .malformedBody)
        #expect(error.req == nil)
    }

    /// Read through a double: a fraction that rounds to a whole number is that number (§2 says so).
    @Test(arguments: [("1.0000000000000001", 1), ("0.99999999999999999", 1), ("1e-400", 0)] as [(String, UInt64)])
    func aFractionADoubleCannotTellFromAWholeNumberIsThatNumber(_ literal: String, _ value: UInt64) throws {
        #expect(try req(literal) == value)
    }

    /// `req` is read from 0 to 2^53, however written; 2^53 + 1 is `malformedBody` (BadInputTests), as §2.1 says.
    @Test(arguments: [("0", 0), ("9007199254740992", 1 << 53), ("9.007199254740992e15", 1 << 53)] as [(String, UInt64)])
    func aReqFromZeroTo2To53IsRead(_ literal: String, _ value: UInt64) throws {
        #expect(try req(literal) == value)
    }

    @Test func anOptionalFieldGivenAsNullCountsAsAbsent() throws {
        let hello = try WireCodec().decode(frames("HELLO", #"""
            {"req": 1, "role": "stepper", "name": "s", "instance": "i", "heartbeat_ms": 1000,
             "serves": null, "adapts": null}
            """#), from: .client)
        guard case .client(.hello(let body)) = hello else { Issue.record("not a HELLO: \(hello)"); return }
        #expect(body.serves == [])
        #expect(body.adapts == false)
        let sessions = try WireCodec().decode(frames("SESSIONS", #"{"req": 2, "limit": null, "after": null}"#), from: .client)
        guard case .client(.sessions(let page)) = sessions else { Issue.record("not SESSIONS: \(sessions)"); return }
        #expect(page.limit == nil)
        #expect(page.after == nil)
    }

    @Test func aRequiredFieldGivenAsNullIsMalformed() throws {
        let error = try #require(decodingError(frames("TREE", #"{"req": 3, "session": null}"#)))
        #expect(error.code == .malformedBody)
        #expect(error.req == 3)
    }
}
