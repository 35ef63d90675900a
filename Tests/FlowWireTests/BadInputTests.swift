import FlowCore
import FlowWire
import Foundation
import Testing

/// A message that breaks the protocol and the error it must give (`docs/PROTOCOL.md` §3, §8).
struct BadInput: Sendable, CustomTestStringConvertible {
    let name: String
    let frames: [[UInt8]]
    let code: WireError.Code
    /// The `req` the error reply carries back.
    let req: UInt64?
    /// The type the error reply names.
    let type: MessageType?

    var testDescription: String { "\(name) → \(code)" }
}

private let step = #"{"name": "castIsPicked", "payload": 4}"#
private let long65 = String(repeating: "s", count: 65)
private let long129 = String(repeating: "n", count: 129)

let badInputs: [BadInput] = [
    // Frames (§2)
    BadInput(name: "no frame", frames: [], code: .malformedFrame, req: nil, type: nil),
    BadInput(
        name: "two frames", frames: Array(frames("HELLO", "{}").prefix(2)), code: .malformedFrame, req: nil, type: nil
    ),
    BadInput(
        name: "four frames (a routing id left in)", frames: [[1, 2, 3]] + frames("HEALTH", #"{"req": 5}"#),
        code: .malformedFrame, req: nil, type: nil
    ),
    BadInput(
        name: "garbage signature", frames: frames("HEALTH", #"{"req": 5}"#, signature: "\u{FF}ZMTP"),
        code: .malformedFrame, req: nil, type: nil
    ),
    BadInput(
        name: "empty signature", frames: frames("HEALTH", #"{"req": 5}"#, signature: ""), code: .malformedFrame,
        req: nil, type: nil
    ),
    BadInput(
        name: "lower-case signature", frames: frames("HEALTH", #"{"req": 5}"#, signature: "flowd1"),
        code: .malformedFrame, req: nil, type: nil
    ),
    BadInput(
        name: "FLOWD with no version", frames: frames("HEALTH", #"{"req": 5}"#, signature: "FLOWD"),
        code: .malformedFrame, req: nil, type: nil
    ),
    BadInput(
        name: "FLOWD and a non-number", frames: frames("HEALTH", #"{"req": 5}"#, signature: "FLOWDX"),
        code: .malformedFrame, req: nil, type: nil
    ),
    // Versions (§3): the reply is in version 1 and carries the req back, as every reply to a request does.
    BadInput(
        name: "FLOWD2", frames: frames("HEALTH", #"{"req": 5}"#, signature: "FLOWD2"), code: .unsupportedVersion,
        req: 5, type: nil
    ),
    BadInput(
        name: "FLOWD10", frames: frames("HELLO", #"{"req": 1}"#, signature: "FLOWD10"), code: .unsupportedVersion,
        req: 1, type: nil
    ),
    BadInput(
        name: "FLOWD2 with a body of its own", frames: frames("HELLO", "\u{1}binary", signature: "FLOWD2"),
        code: .unsupportedVersion, req: nil, type: nil
    ),
    // Types (§2)
    BadInput(name: "unknown type", frames: frames("NOPE", #"{"req": 8}"#), code: .unknownType, req: 8, type: nil),
    BadInput(name: "lower-case type", frames: frames("hello", #"{"req": 1}"#), code: .unknownType, req: 1, type: nil),
    BadInput(name: "empty type", frames: frames("", "{}"), code: .unknownType, req: nil, type: nil),
    // Bodies (§2): not JSON, not an object, a field missing, of the wrong type or out of range.
    BadInput(
        name: "body not JSON", frames: frames("HELLO", "role=presenter"), code: .malformedBody, req: nil, type: .hello),
    BadInput(name: "empty body", frames: frames("HEALTH", ""), code: .malformedBody, req: nil, type: .health),
    BadInput(
        name: "body truncated", frames: frames("HEALTH", #"{"req": 5"#), code: .malformedBody, req: nil, type: .health),
    BadInput(name: "body an array", frames: frames("SESSIONS", "[1]"), code: .malformedBody, req: nil, type: .sessions),
    BadInput(name: "BYE body an array", frames: frames("BYE", "[]"), code: .malformedBody, req: nil, type: .bye),
    BadInput(name: "BYE body a number", frames: frames("BYE", "3"), code: .malformedBody, req: nil, type: .bye),
    BadInput(
        name: "body not UTF-8", frames: [Array("FLOWD1".utf8), Array("HEALTH".utf8), [0x7B, 0xFF, 0xFE, 0x7D]],
        code: .malformedBody, req: nil, type: .health
    ),
    BadInput(
        name: "STEP without attachment",
        frames: frames("STEP", #"{"req": 31, "session": "default", "step": \#(step)}"#),
        code: .malformedBody, req: 31, type: .step
    ),
    BadInput(
        name: "STEP attachment a string",
        frames: frames("STEP", #"{"req": 31, "session": "default", "attachment": "12", "step": \#(step)}"#),
        code: .malformedBody, req: 31, type: .step
    ),
    BadInput(
        name: "STEP step without name",
        frames: frames("STEP", #"{"req": 31, "session": "default", "attachment": 12, "step": {"payload": 4}}"#),
        code: .malformedBody, req: 31, type: .step
    ),
    BadInput(
        name: "STEP without req",
        frames: frames("STEP", #"{"session": "default", "attachment": 12, "step": \#(step)}"#),
        code: .malformedBody, req: nil, type: .step
    ),
    BadInput(
        name: "req a string", frames: frames("HEALTH", #"{"req": "5"}"#), code: .malformedBody, req: nil, type: .health
    ),
    BadInput(
        name: "req negative", frames: frames("HEALTH", #"{"req": -5}"#), code: .malformedBody, req: nil, type: .health),
    BadInput(
        name: "SYNC last_seq negative", frames: frames("SYNC", #"{"req": 2, "session": "default", "last_seq": -1}"#),
        code: .malformedBody, req: 2, type: .sync
    ),
    BadInput(
        name: "HELLO unknown role",
        frames: frames("HELLO", #"{"req": 1, "role": "admin", "name": "x", "heartbeat_ms": 1000}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO heartbeat_ms below 100",
        frames: frames("HELLO", #"{"req": 1, "role": "stepper", "name": "x", "heartbeat_ms": 99}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO heartbeat_ms above 60000",
        frames: frames("HELLO", #"{"req": 1, "role": "stepper", "name": "x", "heartbeat_ms": 60001}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    BadInput(
        name: "REPORT unknown state",
        frames: frames("REPORT", #"{"req": 9, "session": "s", "reports": [{"presentable": "a", "state": "gone"}]}"#),
        code: .malformedBody, req: 9, type: .report
    ),
    BadInput(
        name: "REPORT empty presentable",
        frames: frames("REPORT", #"{"req": 9, "session": "s", "reports": [{"presentable": "", "state": "visible"}]}"#),
        code: .malformedBody, req: 9, type: .report
    ),
    BadInput(
        name: "USER_ACTION presentable over 256 bytes",
        frames: frames(
            "USER_ACTION",
            #"{"req": 10, "session": "s", "presentable": "\#(String(repeating: "p", count: 257))", "action": {"name": "a"}}"#
        ),
        code: .malformedBody, req: 10, type: .userAction
    ),
    BadInput(
        name: "COMMAND unknown op",
        frames: frames("COMMAND", #"{"session": "s", "seq": 1, "command": {"op": "teleport", "target": "a"}}"#),
        code: .malformedBody, req: nil, type: .command
    ),
    BadInput(
        name: "COMMAND push without target",
        frames: frames("COMMAND", #"{"session": "s", "seq": 1, "command": {"op": "push", "screen": {"id": "a"}}}"#),
        code: .malformedBody, req: nil, type: .command
    ),
    // HELLO's instance names the client's STEPs (§3, §5.5): required, 1 to 128 bytes
    BadInput(
        name: "HELLO without instance",
        frames: frames("HELLO", #"{"req": 1, "role": "stepper", "name": "m", "heartbeat_ms": 1000}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO empty instance",
        frames: frames("HELLO", #"{"req": 1, "role": "stepper", "name": "m", "instance": "", "heartbeat_ms": 1000}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO instance over 128 bytes",
        frames: frames(
            "HELLO", #"{"req": 1, "role": "stepper", "name": "m", "instance": "\#(long129)", "heartbeat_ms": 1000}"#),
        code: .malformedBody, req: 1, type: .hello
    ),
    // A DEEPLINK's uri is 1 to 2048 bytes (§7, docs/LIMITS.md)
    BadInput(
        name: "DEEPLINK uri over 2048 bytes",
        frames: frames("DEEPLINK", #"{"req": 3, "session": "s", "uri": "\#(String(repeating: "u", count: 2049))"}"#),
        code: .malformedBody, req: 3, type: .deepLink
    ),
    BadInput(
        name: "DEEPLINK empty uri", frames: frames("DEEPLINK", #"{"req": 3, "session": "s", "uri": ""}"#),
        code: .malformedBody, req: 3, type: .deepLink
    ),
    // Integers are within ±2^53 (§2): a req beyond is not readable
    BadInput(
        name: "req of 2^60", frames: frames("HEALTH", #"{"req": 1152921504606846976}"#), code: .malformedBody, req: nil,
        type: .health
    ),
    BadInput(
        name: "STEP req of 2^53 + 1",
        frames: frames(
            "STEP", #"{"req": 9007199254740993, "session": "s", "attachment": 1, "step": {"name": "go"}}"#),
        code: .malformedBody, req: nil, type: .step
    ),
    // Names (§2.1, §3)
    BadInput(
        name: "HELLO name with a space",
        frames: frames("HELLO", #"{"req": 1, "role": "presenter", "name": "tui presenter", "instance": "i", "heartbeat_ms": 1000}"#),
        code: .invalidName, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO empty name",
        frames: frames("HELLO", #"{"req": 1, "role": "presenter", "name": "", "instance": "i", "heartbeat_ms": 1000}"#),
        code: .invalidName, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO name of 65 characters",
        frames: frames("HELLO", #"{"req": 1, "role": "presenter", "name": "\#(long65)", "instance": "i", "heartbeat_ms": 1000}"#),
        code: .invalidName, req: 1, type: .hello
    ),
    BadInput(
        name: "HELLO stepper kind with a slash",
        frames: frames(
            "HELLO",
            #"{"req": 1, "role": "stepper", "name": "m", "instance": "i", "heartbeat_ms": 1000, "serves": ["ok", "movies/detail"]}"#
        ),
        code: .invalidName, req: 1, type: .hello
    ),
    BadInput(
        name: "STEP session with a slash",
        frames: frames("STEP", #"{"req": 31, "session": "kiosk/3", "attachment": 12, "step": \#(step)}"#),
        code: .invalidName, req: 31, type: .step
    ),
    BadInput(
        name: "STEP empty step name (NoneStep)",
        frames: frames("STEP", #"{"req": 31, "session": "default", "attachment": 12, "step": {"name": ""}}"#),
        code: .invalidName, req: 31, type: .step
    ),
    BadInput(
        name: "STEP step name of 129 characters",
        frames: frames(
            "STEP", #"{"req": 31, "session": "default", "attachment": 12, "step": {"name": "\#(long129)"}}"#),
        code: .invalidName, req: 31, type: .step
    ),
    BadInput(
        name: "SYNC non-ASCII session",
        frames: frames("SYNC", #"{"req": 2, "session": "kiosk-ü", "last_seq": 0, "create": true}"#),
        code: .invalidName, req: 2, type: .sync
    ),
    BadInput(
        name: "ACK session of 65 characters", frames: frames("ACK", #"{"session": "\#(long65)", "seq": 1}"#),
        code: .invalidName, req: nil, type: .ack
    ),
    BadInput(
        name: "REPORT empty session", frames: frames("REPORT", #"{"req": 9, "session": "", "reports": []}"#),
        code: .invalidName, req: 9, type: .report
    ),
    BadInput(
        name: "USER_ACTION action name with a space",
        frames: frames(
            "USER_ACTION", #"{"req": 10, "session": "s", "presentable": "p", "action": {"name": "pick cast"}}"#),
        code: .invalidName, req: 10, type: .userAction
    ),
    BadInput(
        name: "TREE session with a colon", frames: frames("TREE", #"{"req": 2, "session": "a:b"}"#), code: .invalidName,
        req: 2, type: .tree
    ),
    BadInput(
        name: "DEEPLINK step name with a space",
        frames: frames("DEEPLINK", #"{"req": 3, "session": "default", "step": {"name": "movie is picked"}}"#),
        code: .invalidName, req: 3, type: .deepLink
    ),
    BadInput(
        name: "ADAPTED answer that is none of the three",
        frames: frames("ADAPTED", #"{"session": "default", "request": 3, "answer": "maybe"}"#),
        code: .malformedBody, req: nil, type: .adapted
    ),
    BadInput(
        name: "ADAPTED replace without a step",
        frames: frames("ADAPTED", #"{"session": "default", "request": 3, "answer": "replace"}"#),
        code: .malformedBody, req: nil, type: .adapted
    ),
    BadInput(
        name: "ADAPTED replacement step name with a space",
        frames: frames(
            "ADAPTED", #"{"session": "default", "request": 3, "answer": "replace", "step": {"name": "not allowed"}}"#),
        code: .invalidName, req: nil, type: .adapted
    ),
    // §3: HEARTBEAT, BYE, ACK and ADAPTED are not requests: a `req` in them is an unknown field, and their ERROR
    // carries `req` null (a foreign client in Go found these three echoing it).
    BadInput(
        name: "ACK with a req and no seq", frames: frames("ACK", #"{"req": 98, "session": "default"}"#),
        code: .malformedBody, req: nil, type: .ack
    ),
    BadInput(
        name: "HEARTBEAT with a req and sessions an array", frames: frames("HEARTBEAT", #"{"req": 7, "sessions": []}"#),
        code: .malformedBody, req: nil, type: .heartbeat
    ),
    BadInput(
        name: "ADAPTED with a req and an unknown answer",
        frames: frames("ADAPTED", #"{"req": 8, "session": "default", "request": 1, "answer": "Allow"}"#),
        code: .malformedBody, req: nil, type: .adapted
    ),
    BadInput(
        name: "ADAPTED with a req nested too deep",
        frames: frames(
            "ADAPTED", #"{"req": 8, "session": "default", "request": 1, "answer": "allow", "x": "#
                + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"),
        code: .malformedBody, req: nil, type: .adapted
    ),
    BadInput(
        name: "CREATE_SESSION empty session", frames: frames("CREATE_SESSION", #"{"req": 4, "session": ""}"#),
        code: .invalidName, req: 4, type: .createSession
    ),
    // DESCRIBE's session is optional; given, it is held to the pattern like every other session (a foreign client
    // in C found it answered `unknownSession`).
    BadInput(
        name: "DESCRIBE session with a space", frames: frames("DESCRIBE", #"{"req": 6, "session": "a b"}"#),
        code: .invalidName, req: 6, type: .describe
    ),
]

struct BadInputTests {
    @Test(arguments: badInputs)
    func badInputGivesItsErrorCode(_ input: BadInput) throws {
        let error = try #require(decodingError(input.frames))
        #expect(error.code == input.code, "\(error.message)")
        #expect(error.req == input.req)
        #expect(error.type == input.type)
        #expect(!error.message.isEmpty)
        // The reply is an ERROR that says the same.
        let reply = ErrorReply(error)
        #expect(reply.code == input.code)
        #expect(reply.req == input.req)
        #expect(reply.type == input.type?.rawValue)
    }

    /// §2: a body is RFC 8259 JSON; what Foundation's decoder takes beyond it is `malformedBody`, `req` `null` (not
    /// readable), on the Codable path and the fast one (`STEP`, `ACK`) alike.
    @Test(arguments: [
        #"{"req": 5,}"#, #"{"req": 5, "x": [1,]}"#, #"{"req": 5, "x": "\x41"}"#, #"{"req": 5, "x": "\'"}"#,
        #"{"req": 5, "x": 1.}"#, "\u{FEFF}{\"req\": 5}", #"{"req": 5, "x": 01}"#, #"{"req": 5, "x": -}"#,
        #"{"req": 5, "x": 1e}"#, #"{"req": 5, "x": "\u12G4"}"#, "{\"req\": 5, \"x\": \"a\tb\"}", #"{"req": 5} x"#,
        #"{"req": 5, "x": tru}"#, #"{"req": 5 "x": 1}"#, #"{"req": 5, 3: 1}"#, #"{"req": 5, "x": {"a": 1,}}"#,
    ])
    func aBodyBeyondRFC8259IsMalformedWithReqNull(_ body: String) throws {
        // Each type's body whole but for the fault (`req` is unknown to ACK: skipped as any unknown field is).
        let fields = [
            "HEALTH": #""req": 5"#, "STEP": #""req": 5, "session": "s", "attachment": 1, "step": {"name": "a"}"#,
            "ACK": #""session": "s", "seq": 1, "req": 5"#,
        ]
        for (type, whole) in fields {
            let faulty = body.replacingOccurrences(of: #""req": 5"#, with: whole)
            #expect(decodingError(frames(type, "{\(whole)}")) == nil, "\(type)")
            let error = try #require(decodingError(frames(type, faulty)), "\(type) \(faulty)")
            #expect(error.code == .malformedBody && error.req == nil, "\(type) \(faulty): \(error)")
        }
    }

    /// §2: a body is UTF-8; a string that is not (a stray continuation byte, an overlong form, an encoded surrogate,
    /// past U+10FFFF, a sequence cut short) is `malformedBody` with `req` `null` wherever it is: in a known field, an
    /// unknown one Foundation's decoder would skip unread, or a key; on the Codable path and the fast one alike.
    @Test(arguments: [[0x80], [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98]] as [[UInt8]])
    func aStringThatIsNotUTF8IsMalformedWithReqNull(_ bad: [UInt8]) throws {
        let wholes = [
            ("HEALTH", #""req": 5"#), ("STEP", #""req": 5, "session": "s", "attachment": 1, "step": {"name": "a"}"#),
            ("ACK", #""session": "s", "seq": 1, "req": 5"#),
        ]
        for (type, whole) in wholes {
            let places: [[UInt8]] = [
                Array("{\(whole), \"x\": \"a".utf8) + bad + Array("b\"}".utf8),
                Array("{\(whole), \"x\": {\"y\": [\"".utf8) + bad + Array("\"]}}".utf8),
                Array("{\(whole), \"".utf8) + bad + Array("\": 1}".utf8),
            ]
            for body in places {
                let error = try #require(decodingError([Array("FLOWD1".utf8), Array(type.utf8), body]), "\(type) \(bad)")
                #expect(error.code == .malformedBody && error.req == nil, "\(type) \(bad): \(error)")
            }
        }
        let step = #""req": 5, "session": "s", "attachment": 1, "step": {"name": "a", "payload": ""#
        let inPayload = Array("{\(step)".utf8) + bad + Array("\"}}".utf8)
        let error = try #require(decodingError([Array("FLOWD1".utf8), Array("STEP".utf8), inPayload]))
        #expect(error.code == .malformedBody && error.req == nil, "payload \(bad): \(error)")
    }

    @Test func stringsOfEveryUTF8LengthAreRead() throws {
        let texts = ["é", "€", "😀", "\u{FFFF}", "\u{10FFFF}", "\u{D7FF}", "\u{E000}"]
        for text in texts {
            let body = #"{"req": 5, "x": "a\#(text)b", "\#(text)": ["\#(text)"]}"#
            guard case .client(.health(let request)) = try WireCodec().decode(frames("HEALTH", body), from: .client) else {
                Issue.record("not a HEALTH")
                return
            }
            #expect(request.req == 5)
        }
    }

    @Test func bodiesOfEveryRFC8259FormAreRead() throws {
        let body = #"""
             { "req" : 5 , "x" : [ -0.5e+3 , 0 , 1E-2 , true , false , null ,
            "\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00" , { } , [ ] ] }\#r\#n
            """#
        guard case .client(.health(let request)) = try WireCodec().decode(frames("HEALTH", body), from: .client) else {
            Issue.record("not a HEALTH")
            return
        }
        #expect(request.req == 5)
    }

    @Test func aMalformedBodysMessageSaysWhatIsWrongWithIt() throws {
        func message(_ type: String, _ body: String) throws -> String {
            try #require(decodingError(frames(type, body))).message
        }
        #expect(try message("SESSIONS", "[1]").contains("not a JSON object"))
        #expect(try message("BYE", "3").contains("not a JSON object"))
        #expect(try message("HEALTH", #"{"req": 5"#).contains("not valid JSON"))
        // A number that does not fit its field is named as such, not as a body that is not an object.
        let negative = try message("STEP", #"{"req": -1, "session": "default", "attachment": 1, "step": \#(step)}"#)
        #expect(negative.contains("a number does not fit its field"), "\(negative)")
        #expect(try message("SYNC", #"{"req": 1.5, "session": "default", "last_seq": 0}"#).contains("does not fit"))
        #expect(try message("HEALTH", #"{"req": "5"}"#).contains("field 'req' has the wrong type"))
        // Valid JSON that a double or a Swift string cannot hold is not called invalid JSON (a foreign client in Go
        // read "not valid JSON" with its req for `"limit": 1e400`).
        let huge = try message("SESSIONS", #"{"req": 5, "limit": 1e400}"#)
        #expect(huge.contains("a number a double cannot hold") && !huge.contains("not valid JSON"), "\(huge)")
        let surrogate = try message("TREE", #"{"req": 5, "session": "\ud800"}"#)
        #expect(surrogate.contains("unpaired surrogate"), "\(surrogate)")
        // A string no case of the field takes is quoted with the field's wire name, not a Swift type's.
        let role = try message("HELLO", #"{"req": 1, "role": "admin", "name": "x", "heartbeat_ms": 1000}"#)
        #expect(role.contains(#"field 'role' has an unknown value "admin""#), "\(role)")
        let state = try message(
            "REPORT", #"{"req": 9, "session": "s", "reports": [{"presentable": "a", "state": "gone"}]}"#)
        #expect(state.contains(#"field 'reports.0.state' has an unknown value "gone""#), "\(state)")
        #expect(!role.contains("PeerRole") && !state.contains("PresentableState"))
    }

    @Test func aRefusedNameOrTypeTooLongToQuoteIsQuotedCutWithAnEllipsis() throws {
        func message(_ frames: [[UInt8]]) throws -> String { try #require(decodingError(frames)).message }
        // 129 valid characters: cut without a mark, the quote read as a valid name.
        let step129 = String(repeating: "b", count: 129)
        let step = try message(
            frames("STEP", #"{"req": 2, "session": "s", "attachment": 1, "step": {"name": "\#(step129)"}}"#))
        #expect(step == "step name '\(String(repeating: "b", count: 79))…' is not [A-Za-z0-9._:-]{1,128}", "\(step)")
        let kind = try message(
            frames(
                "HELLO",
                #"{"req": 1, "role": "stepper", "name": "s", "instance": "i", "heartbeat_ms": 100, "serves": ["a b"]}"#))
        #expect(kind == "stepper kind 'a b' is not [A-Za-z0-9._:-]{1,128}", "\(kind)")
        let type = try message(frames(String(repeating: "NOPE", count: 20), "{}"))
        #expect(type == "unknown message type '\(String(repeating: "NOPE", count: 8).dropLast())…'", "\(type)")
        let session = try message(frames("TREE", #"{"req": 2, "session": "a:b"}"#))
        #expect(session == "session 'a:b' is not [A-Za-z0-9._-]{1,64}", "\(session)")
    }

    @Test func aBodyOverTheLimitIsTooLargeAndKeepsItsReq() throws {
        let codec = WireCodec(maxBodyBytes: 64)
        let body = #"{"req": 5, "padding": "\#(String(repeating: "x", count: 64))"}"#
        let error = try #require(decodingError(frames("HEALTH", body), codec: codec))
        #expect(error.code == .messageTooLarge)
        #expect(error.req == 5)
        #expect(error.type == .health)
    }

    @Test func aBodyOverTheLimitThatIsNotJSONIsTooLargeWithReqNull() throws {
        let codec = WireCodec(maxBodyBytes: 16)
        let error = try #require(decodingError(frames("HEALTH", String(repeating: "x", count: 17)), codec: codec))
        #expect(error.code == .messageTooLarge)
        #expect(error.req == nil)
    }

    /// §2, §3: a body that is not RFC 8259 JSON has no readable `req`, whichever fault is answered first: an unknown
    /// type, another version and a body over the limit carry `req` `null` for it too, and `5` for a body that is JSON.
    @Test func aBodyThatIsNotJSONHasNoReqWhateverTheFault() throws {
        let small = WireCodec(maxBodyBytes: 1024)
        let notJSON: [[UInt8]] = [
            Array(#"{"req": 5,}"#.utf8), Array(#"{"req": 5} x"#.utf8), Array(#"{"req": 5, "x": 01}"#.utf8),
            Array(#"{"req": 5, "x": "a"#.utf8) + [0xFF] + Array(#""}"#.utf8),
        ]
        let json = Array(#"{"req": 5}"#.utf8)
        for body in notJSON + [json] {
            let expected: UInt64? = body == json ? 5 : nil
            let padded = body.dropLast() + Array(repeating: 0x20, count: 1024) + [body.last!]
            let faults: [([[UInt8]], WireError.Code, WireCodec)] = [
                ([Array("FLOWD1".utf8), Array("NO_SUCH_TYPE".utf8), body], .unknownType, WireCodec()),
                ([Array("FLOWD2".utf8), Array("HEALTH".utf8), body], .unsupportedVersion, WireCodec()),
                ([Array("FLOWD1".utf8), Array("HEALTH".utf8), Array(padded)], .messageTooLarge, small),
            ]
            for (frames, code, codec) in faults {
                let error = try #require(decodingError(frames, codec: codec))
                #expect(error.code == code && error.req == expected, "\(code) \(String(decoding: body, as: UTF8.self))")
            }
        }
    }

    @Test func aBodyAtTheLimitIsAccepted() throws {
        let body = #"{"req": 5}"#
        let codec = WireCodec(maxBodyBytes: body.utf8.count)
        #expect(try codec.decode(frames("HEALTH", body), from: .client) == .client(.health(PlainRequest(req: 5))))
    }

    @Test func theDefaultLimitIs256KiB() throws {
        #expect(WireCodec().maxBodyBytes == 262_144)
        let padding = String(repeating: "x", count: 262_144)
        let error = try #require(decodingError(frames("HEALTH", #"{"req": 5, "p": "\#(padding)"}"#)))
        #expect(error.code == .messageTooLarge)
        #expect(error.req == 5)
    }

    @Test func namesAtTheirLimitsAreValid() throws {
        let codec = WireCodec()
        let name64 = String(repeating: "a", count: 64)
        let instance128 = String(repeating: "i", count: 128)
        let stepName128 = String(repeating: "b", count: 128)
        let presentable256 = String(repeating: "é", count: 128)  // 256 bytes
        let uri2048 = String(repeating: "u", count: 2048)
        #expect(
            try codec.decode(frames("DEEPLINK", #"{"req": 4, "session": "s", "uri": "\#(uri2048)"}"#), from: .client)
                == .client(.deepLink(DeepLinkRequest(req: 4, session: "s", uri: uri2048))))
        #expect(
            try codec.decode(
                frames(
                    "HELLO",
                    #"{"req": 1, "role": "stepper", "name": "\#(name64)", "instance": "\#(instance128)", "heartbeat_ms": 100, "serves": ["a:b.c-d_e"]}"#
                ),
                from: .client
            )
                == .client(.hello(
                    Hello(
                        req: 1, role: .stepper, name: name64, instance: instance128, heartbeatMs: 100,
                        serves: ["a:b.c-d_e"])))
        )
        #expect(
            try codec.decode(
                frames(
                    "STEP", #"{"req": 2, "session": "A.z_0-9", "attachment": 1, "step": {"name": "\#(stepName128)"}}"#),
                from: .client
            ) == .client(.step(StepMessage(req: 2, session: "A.z_0-9", attachment: 1, step: Step(stepName128))))
        )
        #expect(
            try codec.decode(
                frames(
                    "USER_ACTION",
                    #"{"req": 3, "session": "s", "presentable": "\#(presentable256)", "action": {"name": "x"}}"#),
                from: .client
            ) == .client(.userAction(UserAction(req: 3, session: "s", presentable: presentable256, action: Step("x"))))
        )
    }
}
