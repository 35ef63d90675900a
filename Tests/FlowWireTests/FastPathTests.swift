import FlowCore
import FlowWire
import Foundation
import Testing

/// The codec writes a step's round trip (STEP, COMMAND, OK, ACK, EVENT), ADAPT, the daemon's HEARTBEAT and WELCOME, and
/// reads STEP, ACK, ADAPTED, COMMAND, OK and a client's empty HEARTBEAT without `JSONEncoder`/`JSONDecoder`
/// (docs/PERFORMANCE.md): these tests hold those fast paths to the `Codable` reference, byte for byte when writing and
/// value for value when reading (a client's HEARTBEAT, which goes the `Codable` way, too).
struct FastPathTests {
    private static let trickyPayload: JSONValue = [
        "null": nil, "bool": true, "int": -42, "min": .int(Int.min), "max": .int(Int.max),
        "string": "é \"quoted\" / \\ \n\t\r\u{08}\u{0C}\u{01}\u{1F}\u{7F} \u{2028} 😀",
        "array": [1, "two", [3], [:], []], "object": ["nested": ["deeper": false]],
        "B": 1, "a": 2, "_x": 3, "a10": 4, "a9": 5, "Ä": 6, "é": 7, "e\u{301}x": 8, "": 9,
    ]

    static let messages: [WireMessage] = [
        .daemon(.command(
            CommandMessage(
                session: "default", seq: 58,
                command: .push(.view("wishlist.movie.23452", type: "MovieDetail", data: trickyPayload), onto: "w")
            )
        )),
        .daemon(.command(CommandMessage(session: "s", seq: 1, command: .setStack("bench.root", [.view("x", type: "T")])))),
        .daemon(.command(CommandMessage(session: "s", seq: 2, command: .setTabs("t", [.stack("a"), .stack("b")], selected: 1)))),
        .daemon(.command(CommandMessage(session: "s", seq: 3, command: .selectTab("t", index: 2)))),
        .daemon(.command(CommandMessage(session: "s", seq: 4, command: .setRoot(.stack("app"))))),
        .daemon(.command(CommandMessage(session: "s", seq: 5, command: .pop(stack: "app")))),
        .daemon(.command(CommandMessage(session: "s", seq: 6, command: .popToRoot(stack: "app")))),
        .daemon(.command(CommandMessage(session: "s", seq: 7, command: .present(.alert("a", message: "Hi"), over: "app")))),
        .daemon(.command(CommandMessage(session: "s", seq: 8, command: .dismiss(presentedOver: "app")))),
        .daemon(.command(CommandMessage(session: "s", seq: 9, command: .showMaster("split", .view("m", type: "M"))))),
        .daemon(.command(CommandMessage(session: "s", seq: 10, command: .showDetail("split", .view("d", type: "D"))))),
        .daemon(.ok(OKReply(req: 7))),
        .daemon(.ok(OKReply(req: 31, result: ["accepted": true]))),
        .daemon(.ok(OKReply(req: 32, result: ["accepted": false, "reason": "notVisible"]))),
        .daemon(.ok(OKReply(req: 33, result: trickyPayload))),
        .daemon(.ok(OKReply(req: 34, result: ["ratio": 2.5]))),
        .daemon(.event(
            EventMessage(
                event: "did", session: "default", flow: "WishlistFlow", coordinator: 4,
                step: Step("movieIsPicked", payload: 23452), text: "did navigate flow=WishlistFlow step=movieIsPicked"
            )
        )),
        .daemon(.event(
            EventMessage(
                event: "drop", session: "default", flow: nil, coordinator: nil, step: Step("x", payload: trickyPayload),
                reason: "noRootFlow", text: "dropped \"x\""
            )
        )),
        .client(.ack(Ack(session: "default", seq: 58))),
        .client(.step(StepMessage(req: 31, session: "default", attachment: 12, step: Step("castIsPicked", payload: 4)))),
        .client(.step(StepMessage(req: 32, session: "default", attachment: -1, step: Step("x", payload: trickyPayload)))),
        .client(.step(StepMessage(req: 33, session: "default", attachment: 1, step: Step("x", payload: 0.5)))),
        .client(.heartbeat(Heartbeat())),
        .daemon(.heartbeat(Heartbeat())),
        .daemon(.heartbeat(Heartbeat(sessions: ["default": .max]))),
        .daemon(.heartbeat(Heartbeat(sessions: ["default": 42, "Kiosk": 1, "kiosk-3": 0]))),
        .daemon(.heartbeat(
            Heartbeat(sessions: ["B": 1, "a": 2, "_x": 3, "a10": 4, "a9": .max, "Ä": 6, "é": 7, "e\u{301}x": 8, "\"/\\\n": 9])
        )),
        .daemon(.welcome(Welcome(req: 1, peer: "p1", daemon: "0123456789abcdef0123456789abcdef", heartbeatMs: 1000))),
        .daemon(.welcome(Welcome(req: 9_007_199_254_740_992, peer: "p\"/\\é\u{1F}", daemon: "", heartbeatMs: 60_000, protocol: 7))),
        .daemon(.adapt(
            AdaptMessage(
                session: "default", request: 3, kind: "movies.wishlist", flow: "wishlist", coordinator: 4,
                step: Step("aboutIsRequired", payload: trickyPayload)
            )
        )),
        .daemon(.adapt(AdaptMessage(session: "s", request: 1, kind: "k", flow: "f", coordinator: 1, step: Step("x", payload: 0.5)))),
        .client(.adapted(AdaptedMessage(session: "default", request: 3, answer: .allow))),
        .client(.adapted(AdaptedMessage(session: "default", request: 4, answer: .refuse))),
        .client(.adapted(AdaptedMessage(session: "default", request: 5, answer: .replace(Step("x", payload: trickyPayload))))),
    ]

    private func reference(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func referenceBody(_ message: WireMessage) throws -> String? {
        switch message {
        case .daemon(.command(let body)): return try reference(body)
        case .daemon(.ok(let body)): return try reference(body)
        case .daemon(.event(let body)): return try reference(body)
        case .client(.ack(let body)): return try reference(body)
        case .client(.step(let body)): return try reference(body)
        case .client(.heartbeat(let body)), .daemon(.heartbeat(let body)): return try reference(body)
        case .daemon(.welcome(let body)): return try reference(body)
        case .daemon(.adapt(let body)): return try reference(body)
        case .client(.adapted(let body)): return try reference(body)
        default: return nil
        }
    }

    @Test(arguments: messages)
    func theCodecWritesWhatJSONEncoderWrites(_ message: WireMessage) throws {
        let expected = try #require(try referenceBody(message))
        #expect(String(decoding: WireCodec().encodeBody(message), as: UTF8.self) == expected)
    }

    /// The daemon writes every message it sends into one writer, reused: each body and type frame is the codec's own,
    /// whatever the message before it left in the writer (a fast body after one left to `JSONEncoder` and back).
    @Test func aReusedWriterWritesEachDaemonMessageAsTheCodecDoes() {
        let codec = WireCodec()
        var writer = FastJSONWriter()
        let daemonMessages = (Self.messages + Self.messages.reversed()).compactMap { message -> DaemonMessage? in
            if case .daemon(let sent) = message { sent } else { nil }
        }
        #expect(daemonMessages.count > 20)
        for message in daemonMessages {
            codec.encodeBody(message, into: &writer)
            #expect(writer.bytes == codec.encodeBody(message.wire))
            #expect(message.typeFrame == codec.encode(message.wire)[1])
        }
    }

    /// A string with nothing to escape is stored at once with its quotes, the writer's buffer grown first when it
    /// must be: the empty string, the longest small string and the shortest on the heap, one that ends just past the
    /// first buffer, one far longer, each after an escaped one.
    @Test(arguments: [0, 15, 16, 250, 254, 255, 3_000])
    func plainStringsAreWrittenAsJSONEncoderWritesThem(_ length: Int) throws {
        let plain = String(repeating: "é/x", count: length / 4) + String(repeating: "a", count: length % 4)
        var writer = FastJSONWriter()
        writer.string("tab\t")
        writer.string(plain)
        writer.string("")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = try ["tab\t", plain, ""].map { String(decoding: try encoder.encode($0), as: UTF8.self) }.joined()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test func keysAreWrittenWithTheirSeparator() {
        var writer = FastJSONWriter()
        writer.raw("{")
        writer.key("attachment", first: true)
        writer.int(1)
        writer.key("", first: false)
        writer.string("x")
        writer.key("v", first: false)
        writer.raw("null}")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"attachment":1,"":"x","v":null}"#)
    }

    @Test(arguments: messages)
    func whatTheCodecWritesItReadsBack(_ message: WireMessage) throws {
        let codec = WireCodec()
        #expect(try codec.decode(codec.encode(message), from: message.sender) == message)
    }

    /// Bodies the fast reader must read as `JSONDecoder` does, or leave to it.
    static let stepBodies: [String] = [
        #"{"attachment":12,"req":31,"session":"default","step":{"name":"tick","payload":4}}"#,
        #" { "step" : { "payload" : [ 1 , { "a" : null } ] , "name" : "tick" } , "req" : 1 , "session" : "s" , "attachment" : 1 } "#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick"},"extra":{"deep":[1,2,{"x":"y"}]}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":1.0}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":1e2}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":-0}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":"a\"b\u00e9"}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":null}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":{"b":true,"a":false}}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":123456789012345678901234567890}}"#,
        #"{"attachment":1,"req":2,"req":3,"session":"s","step":{"name":"tick"}}"#,
        // Keys that share a known key's length or prefix, around it and in its place in the order.
        #"{"attachmenT":5,"attachment":1,"rex":7,"req":2,"sessions":"t","session":"s","step":{"nam":"x","name":"tick","payloads":0,"payload":3}}"#,
        #"{"attachment":1,"re":7,"step":{"payload":3,"name":"tick"},"session":"s","req":2}"#,
        #"{"attachment":-9223372036854775808,"req":2,"session":"s","step":{"name":"tick","payload":9223372036854775807}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":9223372036854775808}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":10000000000000000000}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":99999999999999999999}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":-9223372036854775809}}"#,
    ]

    /// JSONDecoder takes a trailing comma, RFC 8259 does not: the fast reader leaves it to the codec's slow path, which
    /// refuses it (docs/PROTOCOL.md §2), whichever way the message goes.
    @Test(arguments: [
        ("STEP", #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":[1,]}}"#),
        ("COMMAND", #"{"command":{"op":"setStack","screens":[{"id":"x"},],"target":"s"},"seq":11,"session":"s"}"#),
    ])
    func aTrailingCommaIsRefusedOnBothPaths(_ type: String, _ body: String) throws {
        #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8))) != nil)
        let frames = [Array("FLOWD1".utf8), Array(type.utf8), Array(body.utf8)]
        #expect(throws: WireError.self) { try WireCodec().decode(frames, from: .client) }
    }

    @Test(arguments: stepBodies)
    func aStepBodyReadsAsJSONDecoderReadsIt(_ body: String) throws {
        let frames = [Array("FLOWD1".utf8), Array("STEP".utf8), Array(body.utf8)]
        let expected = try JSONDecoder().decode(StepMessage.self, from: Data(body.utf8))
        #expect(try WireCodec().decode(frames, from: .client) == .client(.step(expected)))
    }

    static let otherBodies: [(type: String, body: String)] = [
        ("ACK", #"{"seq":58,"session":"default"}"#),
        ("ACK", #"{"session":"default","seq":58,"note":[true]}"#),
        ("HEARTBEAT", #"{}"#),
        ("HEARTBEAT", #"{"sessions":null}"#),
        ("HEARTBEAT", #"{"sessions":{"default":42,"b":0}}"#),
        ("ADAPTED", #"{"answer":"allow","request":3,"session":"default"}"#),
        ("ADAPTED", #"{"session":"s","answer":"replace","step":{"name":"x","payload":[1,{"a":null}]},"request":-1,"note":1}"#),
        ("ADAPTED", #"{"answer":"refuse","request":3,"session":"default","step":{"name":"ignored"}}"#),
        ("ADAPTED", #"{"answer":"allow","request":3,"request":4,"session":"default"}"#),
    ]

    @Test func ackHeartbeatAndAdaptedBodiesReadAsJSONDecoderReadsThem() throws {
        for (type, body) in Self.otherBodies {
            let frames = [Array("FLOWD1".utf8), Array(type.utf8), Array(body.utf8)]
            let data = Data(body.utf8)
            let expected: WireMessage =
                switch type {
                case "ACK": .client(.ack(try JSONDecoder().decode(Ack.self, from: data)))
                case "ADAPTED": .client(.adapted(try JSONDecoder().decode(AdaptedMessage.self, from: data)))
                default: .client(.heartbeat(try JSONDecoder().decode(Heartbeat.self, from: data)))
                }
            #expect(try WireCodec().decode(frames, from: .client) == expected, "\(body)")
        }
    }

    /// COMMAND and OK bodies (what a client reads on every step) the fast reader must read as `JSONDecoder` does, or
    /// leave to it.
    static let replyBodies: [(type: String, body: String)] = [
        ("OK", #"{"req":31,"result":{"accepted":true}}"#),
        // The accepted verdict is taken verbatim; anything around or after it is read as any result.
        ("OK", #"{"result":{"accepted":true},"req":31}"#),
        ("OK", #"{"req":31,"result":{"accepted":true,"duplicate":true}}"#),
        ("OK", #"{"req":31,"result":{"accepted":true} ,"x":{"accepted":true}}"#),
        ("OK", #"{"req":31,"result":{"accepted":truee}}"#),
        ("OK", #"{"req":31,"result":{"accepted":true}"#),
        ("OK", #"{"req":31,"result":{"accepted":true},"result":{"accepted":true}}"#),
        ("OK", #"{"result":{"accepted":false,"reason":"notVisible"},"req":32,"note":[1,{"a":null}]}"#),
        ("OK", #"{"req":7}"#),
        ("OK", #"{"req":7,"result":null}"#),
        ("OK", #"{"req":7,"result":[1,"two",{"x":[]}]}"#),
        ("OK", #"{"req":7,"result":{"ratio":2.5}}"#),
        ("OK", #"{"req":7,"result":{"a":1,"a":2}}"#),
        ("OK", #"{"req":7,"req":8,"result":{}}"#),
        ("OK", #"{"req":7,"result":{"s":"a\nb"}}"#),
        ("COMMAND", #"{"command":{"op":"setStack","screens":[{"data":4,"id":"x","kind":"view","type":"T"}],"target":"s"},"seq":1,"session":"s"}"#),
        ("COMMAND", #" { "session" : "s" , "seq" : 2 , "command" : { "target" : "app" , "op" : "push" , "screen" : { "id" : "m" } } } "#),
        ("COMMAND", #"{"command":{"op":"present","screen":{"id":"a","kind":"alert","data":null},"target":"app"},"seq":3,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"setRoot","screen":{"id":"a","kind":"stack","type":null}},"seq":3,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"setTabs","screens":[{"id":"a"},{"id":"b","data":{"k":[1]}}],"selected":1,"target":"t"},"seq":4,"session":"s"}"#),
        ("COMMAND", #"{"command":{"index":2,"op":"selectTab","target":"t"},"seq":5,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"pop","target":"app","screen":7},"seq":6,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"popToRoot","target":"app","extra":{"x":[true]}},"seq":7,"session":"s","more":0}"#),
        ("COMMAND", #"{"command":{"op":"dismiss","target":"app"},"seq":8,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"showMaster","screen":{"id":"m","type":"M"},"target":"split"},"seq":9,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"showDetail","screen":{"id":"d","data":1.5},"target":"split"},"seq":10,"session":"s"}"#),
        ("COMMAND", #"{"command":{"op":"setStack","screens":[{"id":"x","id":"y"}],"target":"s"},"seq":12,"session":"s"}"#),
    ]

    @Test func okAndCommandBodiesReadAsJSONDecoderReadsThem() throws {
        for (type, body) in Self.replyBodies {
            let frames = [Array("FLOWD1".utf8), Array(type.utf8), Array(body.utf8)]
            let data = Data(body.utf8)
            let decoded = try? WireCodec().decode(frames, from: .daemon)
            let expected: WireMessage? =
                type == "OK"
                ? (try? JSONDecoder().decode(OKReply.self, from: data)).map { .daemon(.ok($0)) }
                : (try? JSONDecoder().decode(CommandMessage.self, from: data)).map { .daemon(.command($0)) }
            #expect(decoded == expected, "\(body)")
        }
    }

    /// The fast reader takes the COMMANDs and OKs the daemon writes when they hold no escape and no double (the
    /// benchmark's commands and every verdict among them), so a client reads a step's round trip without `JSONDecoder`.
    @Test(arguments: [0, 7, 10, 99, 100, 12_345, 4_294_967_296, UInt64.max])
    func theFastWriterWritesAnUnsignedNumbersDigits(_ value: UInt64) {
        var writer = FastJSONWriter()
        writer.unsigned(value)
        #expect(writer.bytes == Array(String(value).utf8))
    }

    @Test func theFastReaderTakesPlainCommandsAndVerdicts() {
        let codec = WireCodec()
        var read = 0
        for message in Self.messages {
            let type: MessageType
            switch message {
            case .daemon(.command): type = .command
            case .daemon(.ok(let reply)) where reply.result != ["ratio": 2.5]: type = .ok  // a double is JSONDecoder's
            default: continue
            }
            let body = codec.encodeBody(message)
            if body.contains(0x5C) { continue }  // an escape is JSONDecoder's
            #expect(WireMessage.fastMessage(type, body: body, from: .daemon) == message, "\(message)")
            read += 1
        }
        #expect(read == 13)
    }

    /// A client's heartbeat as the clients write it is read as it is; the same bytes from the daemon, and any other
    /// heartbeat body, go to `JSONDecoder`.
    @Test func aClientsEmptyHeartbeatIsReadAsJSONDecoderReadsIt() throws {
        let body = WireCodec().encodeBody(.client(.heartbeat(Heartbeat())))
        #expect(WireMessage.fastMessage(.heartbeat, body: body, from: .client) == .client(.heartbeat(Heartbeat())))
        #expect(try JSONDecoder().decode(Heartbeat.self, from: Data(body)) == Heartbeat())
        #expect(WireMessage.fastMessage(.heartbeat, body: body, from: .daemon) == nil)
        #expect(WireMessage.fastMessage(.heartbeat, body: Array(#"{"sessions":{"s":1}}"#.utf8), from: .client) == nil)
        let frames = [Array("FLOWD1".utf8), Array("HEARTBEAT".utf8), body]
        #expect(try WireCodec().decode(frames, from: .client) == .client(.heartbeat(Heartbeat())))
        #expect(try WireCodec().decode(frames, from: .daemon) == .daemon(.heartbeat(Heartbeat())))
    }

    /// Strings the fast reader makes itself: empty, small ASCII (up to 15 bytes, taken as they are), heap ASCII, and
    /// non-ASCII small and large (validated), read as `JSONDecoder` reads them.
    @Test func theFastReaderMakesSmallLargeAndNonASCIIStrings() throws {
        let texts = ["", "fifteen-bytes-a", "sixteen-bytes-ab", "é", String(repeating: "é", count: 20), "😀 ✓ \u{7F}"]
        let payload = "[" + texts.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let body = Array(#"{"attachment":1,"req":2,"session":"fifteen-bytes-a","step":{"name":"tick","payload":"#.utf8)
            + Array(payload.utf8) + Array("}}".utf8)
        let fast = try #require(WireMessage.fastMessage(.step, body: body, from: .client))
        #expect(fast == .client(.step(try JSONDecoder().decode(StepMessage.self, from: Data(body)))))
        guard case .client(.step(let step)) = fast else { return }
        #expect(step.step.payload == .array(texts.map(JSONValue.string)))
    }

    static let badStepBodies: [String] = [
        #"{"attachment":1,"req":-2,"session":"s","step":{"name":"tick"}}"#,
        #"{"attachment":1,"session":"s","step":{"name":"tick"}}"#,
        #"{"attachment":"1","req":2,"session":"s","step":{"name":"tick"}}"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick"}} x"#,
        #"{"attachment":1,"req":2,"session":"s","step":{"name":"tick","payload":01}}"#,
        #"[1]"#,
    ]

    @Test(arguments: badStepBodies)
    func aBadStepBodyIsRefusedAsMalformed(_ body: String) {
        let frames = [Array("FLOWD1".utf8), Array("STEP".utf8), Array(body.utf8)]
        #expect(throws: WireError.self) { try WireCodec().decode(frames, from: .client) }
        #expect((try? JSONDecoder().decode(StepMessage.self, from: Data(body.utf8))) == nil)
    }

    /// `fields` hands each listed key's value to the reader with the key's index, once: a listed key seen twice gives
    /// up (`JSONDecoder` would keep the last), and any other member, nested or a longer key, is read and skipped.
    @Test func fieldsReadEachListedKeyOnceAndSkipTheOthers() {
        func read(_ text: String) -> [Int: JSONValue]? {
            FastJSONReader.read(Array(text.utf8)) { reader throws(FastPathUnsupported) in
                var read: [Int: JSONValue] = [:]
                try reader.fields(["a", "b"], depth: 1) { reader, field throws(FastPathUnsupported) in
                    read[field] = try reader.value(depth: 1)
                }
                return read
            }
        }
        #expect(read(#"{"b":2,"x":{"a":[1]},"a":1}"#) == [0: 1, 1: 2])
        #expect(read(#" { } "#) == [:])
        #expect(read(#"{"ab":1,"":2}"#) == [:])
        #expect(read(#"{"a":1,"b":2,"a":3}"#) == nil)
        #expect(read(#"{"a":1,"b":2,"b":2}"#) == nil)
    }

    /// `fields` tries the key after the last one read on the bytes in place, then looks the key up: a key that shares
    /// the expected one's length or prefix, one out of order, one unknown in between and a repeat read as before.
    @Test func fieldsTryTheNextKeyInPlaceThenLookItUp() {
        func read(_ text: String) -> [Int: JSONValue]? {
            FastJSONReader.read(Array(text.utf8)) { reader throws(FastPathUnsupported) in
                var read: [Int: JSONValue] = [:]
                try reader.fields(["req", "seq", "session"], depth: 1) { reader, field throws(FastPathUnsupported) in
                    read[field] = try reader.value(depth: 1)
                }
                return read
            }
        }
        #expect(read(#"{"req":1,"seq":2,"session":3}"#) == [0: 1, 1: 2, 2: 3])
        #expect(read(#"{ "req" : 1 , "seq"  :2,"session":3 }"#) == [0: 1, 1: 2, 2: 3])
        #expect(read(#"{"rex":9,"req":1,"sex":9,"seq":2,"sessions":9,"sessio":9,"session":3}"#) == [0: 1, 1: 2, 2: 3])
        #expect(read(#"{"session":3,"seq":2,"req":1}"#) == [0: 1, 1: 2, 2: 3])
        #expect(read(#"{"req":1,"x":{"seq":9},"session":3,"seq":2}"#) == [0: 1, 1: 2, 2: 3])
        #expect(read(#"{"seq":2,"":9,"re":9,"reqs":9}"#) == [1: 2])
        #expect(read(#"{"req":1,"req":2}"#) == nil)
        #expect(read(#"{"req":1,"seq":2,"seq":2}"#) == nil)
        #expect(read(#"{"session":3,"req":1,"seq":2,"session":3}"#) == nil)
        #expect(read(#"{"req":1,"se"#) == nil)
        #expect(read(#"{"req"#) == nil)
        #expect(read(#"{"req\u0000":1}"#) == nil)
        #expect(read(#"{"req":1,"seq\"":2}"#) == nil)
    }
}
