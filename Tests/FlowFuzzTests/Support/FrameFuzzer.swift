import FlowCore
import FlowWire
import TestFlows

/// One generated input: the frames a DEALER would send, and how they were made (for the statistics and to replay a
/// failing case).
struct FuzzCase {
    var frames: [[UInt8]]
    var mutation: Mutation

    /// Frames as readable text, for a failure report.
    var dump: String {
        frames.map { frame in
            let text = String(decoding: frame.prefix(300), as: UTF8.self)
            return "[\(frame.count) bytes] \(text.debugDescription)"
        }.joined(separator: " | ")
    }
}

/// How a case was made.
enum Mutation: String, CaseIterable, Sendable {
    /// Random frames: random count, random bytes.
    case random
    /// A corpus message as it is.
    case verbatim
    case bitFlips
    case truncation
    case byteInsertion
    case byteDeletion
    case frameSplit
    case frameMerge
    case frameDropped
    case frameAdded
    case framesSwapped
    case wrongSignature
    case wrongType
    /// The body of one message type under another type.
    case typeConfusion
    /// A body that is not one JSON object (empty, an array, garbage after the object, a BOM, …).
    case bodyNotObject
    /// One to three structure-aware JSON mutations (wrong types, missing and extra fields, huge numbers, NaN-like
    /// tokens, deep nesting, invalid UTF-8, long strings, duplicate keys).
    case json
    /// JSON mutations, then a byte-level one.
    case jsonThenBytes
    /// A body over `max_body_bytes` (256 KiB), below the socket's hard limit (1 MiB).
    case oversizedBody
}

/// Makes fuzz cases from the corpus (``FuzzCorpus``) with a ``SplitMix64``.
struct FrameFuzzer {
    let seeds = FuzzCorpus.seeds
    /// The corpus indices of each message type's seeds: a case picks a type first, so that every type gets the same
    /// share whatever the number of its variants.
    let seedsByType: [[Int]] = Dictionary(grouping: FuzzCorpus.seeds.indices) { FuzzCorpus.seeds[$0].message.type }
        .sorted { $0.key.rawValue < $1.key.rawValue }.map(\.value)
    let maxBodyBytes = WireProtocol.defaultMaxBodyBytes

    /// One case.
    func make(_ rng: inout SplitMix64) -> FuzzCase {
        let seedIndex = rng.pick(rng.pick(seedsByType))
        let seed = seeds[seedIndex]
        var frames = seed.frames
        let roll = rng.below(10_000)
        let mutation: Mutation
        switch roll {
        case 0..<3:
            mutation = .oversizedBody
            frames[2] = oversizedBody(&rng, seed: seed)
        case 3..<800:
            mutation = .random
            let count = rng.below(10) < 7 ? 3 : rng.below(7)
            frames = (0..<count).map { _ in rng.bytes(rng.length(max: 64)) }
            if count == 3, rng.below(2) == 0 { frames[0] = WireProtocol.signature }
            if count == 3, rng.below(3) == 0 { frames[1] = Array(rng.pick(MessageType.allCases).rawValue.utf8) }
        case 800..<1000:
            mutation = .verbatim
        case 1000..<1800:
            mutation = .bitFlips
            let target = pickFrame(&rng, frames)
            flipBits(&frames[target], &rng)
        case 1800..<2300:
            mutation = .truncation
            let target = pickFrame(&rng, frames)
            frames[target] = Array(frames[target].prefix(rng.below(max(1, frames[target].count))))
        case 2300..<2800:
            mutation = .byteInsertion
            let target = pickFrame(&rng, frames)
            insertBytes(&frames[target], &rng)
        case 2800..<3300:
            mutation = .byteDeletion
            let target = pickFrame(&rng, frames)
            deleteBytes(&frames[target], &rng)
        case 3300..<3600:
            mutation = .frameSplit
            let target = rng.below(frames.count)
            let cut = rng.below(frames[target].count + 1)
            let frame = frames[target]
            frames.replaceSubrange(target...target, with: [Array(frame[..<cut]), Array(frame[cut...])])
        case 3600..<3900:
            mutation = .frameMerge
            let target = rng.below(frames.count - 1)
            frames.replaceSubrange(target...(target + 1), with: [frames[target] + frames[target + 1]])
        case 3900..<4100:
            mutation = .frameDropped
            frames.remove(at: rng.below(frames.count))
        case 4100..<4300:
            mutation = .frameAdded
            let extra = rng.below(3) == 0 ? [] : rng.bytes(rng.length(max: 32))
            frames.insert(rng.below(2) == 0 ? extra : seed.frames[2], at: rng.below(frames.count + 1))
        case 4300..<4400:
            mutation = .framesSwapped
            let first = rng.below(3)
            let second = (first + 1 + rng.below(2)) % 3
            frames.swapAt(first, second)
        case 4400..<4900:
            mutation = .wrongSignature
            frames[0] = wrongSignature(&rng)
        case 4900..<5400:
            mutation = .wrongType
            frames[1] = wrongType(&rng, seedType: seed.message.type)
        case 5400..<5800:
            mutation = .typeConfusion
            frames[1] = Array(rng.pick(MessageType.allCases).rawValue.utf8)
            if rng.below(2) == 0 { frames[2] = mutatedBody(seed.body, &rng) }
        case 5800..<6200:
            mutation = .bodyNotObject
            frames[2] = notAnObject(&rng, body: frames[2])
        case 6200..<9000:
            mutation = .json
            frames[2] = mutatedBody(seed.body, &rng)
        default:
            mutation = .jsonThenBytes
            frames[2] = mutatedBody(seed.body, &rng)
            switch rng.below(3) {
            case 0: flipBits(&frames[2], &rng)
            case 1: insertBytes(&frames[2], &rng)
            default: deleteBytes(&frames[2], &rng)
            }
        }
        return FuzzCase(frames: frames, mutation: mutation)
    }

    // MARK: - Bytes and frames

    /// A frame, most often the body.
    private func pickFrame(_ rng: inout SplitMix64, _ frames: [[UInt8]]) -> Int {
        rng.below(10) < 7 ? frames.count - 1 : rng.below(frames.count)
    }

    private func flipBits(_ frame: inout [UInt8], _ rng: inout SplitMix64) {
        guard !frame.isEmpty else {
            frame = [rng.byte()]
            return
        }
        for _ in 0..<(1 + rng.below(rng.below(4) == 0 ? 16 : 3)) {
            frame[rng.below(frame.count)] ^= 1 << UInt8(rng.below(8))
        }
    }

    private func insertBytes(_ frame: inout [UInt8], _ rng: inout SplitMix64) {
        let interesting: [[UInt8]] = [
            [0x00], [0xFF], [0x22], [0x5C], [0x7B], [0x7D], [0x5B], [0x5D], [0x2C], [0x3A], [0x2D], [0x30],
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF], Array(#"\u0000"#.utf8), Array(#"\ud800"#.utf8),
            Array("1e999".utf8), Array("NaN".utf8),
        ]
        let insertion = rng.below(2) == 0 ? rng.pick(interesting) : rng.bytes(1 + rng.below(8))
        frame.insert(contentsOf: insertion, at: rng.below(frame.count + 1))
    }

    private func deleteBytes(_ frame: inout [UInt8], _ rng: inout SplitMix64) {
        guard !frame.isEmpty else { return }
        let start = rng.below(frame.count)
        let count = 1 + rng.below(min(frame.count - start, rng.below(4) == 0 ? 64 : 4))
        frame.removeSubrange(start..<(start + count))
    }

    private func wrongSignature(_ rng: inout SplitMix64) -> [UInt8] {
        let variants = [
            "FLOWD2", "FLOWD0", "FLOWD9", "FLOWD", "FLOWD10", "FLOWD01", "FLOWD99999999999999999999999999", "flowd1",
            "FLOWD1 ", " FLOWD1", "FLOWD1\0", "FLOWDx", "FLOWD-1", "FLOWD\u{0661}", "FLOW", "", "ZMTP", "FLOWD1FLOWD1",
        ]
        return rng.below(5) == 0 ? rng.bytes(rng.length(max: 12)) : Array(rng.pick(variants).utf8)
    }

    private func wrongType(_ rng: inout SplitMix64, seedType: MessageType) -> [UInt8] {
        switch rng.below(6) {
        case 0: return Array(seedType.rawValue.lowercased().utf8)
        case 1: return rng.bytes(rng.length(max: 40))
        case 2: return Array(String(repeating: "A", count: rng.pick([31, 32, 33, 64, 1000])).utf8)
        case 3: return Array(seedType.rawValue.utf8) + [rng.pick([0x00, 0x20, 0xFF, 0x5F, 0x41])]
        default:
            let variants = [
                "", "TELEPORT", " STEP", "STEP\n", "HELLO\u{301}", "ＳＴＥＰ", "Step", "USER-ACTION", "DEEP_LINK",
                "_",
                "OK ", "ERROR\0", "\u{FEFF}HELLO",
            ]
            return Array(rng.pick(variants).utf8)
        }
    }

    private func notAnObject(_ rng: inout SplitMix64, body: [UInt8]) -> [UInt8] {
        let variants = [
            "", " ", "null", "[]", "[{}]", "\"text\"", "42", "-0", "true", "{", "}", "{}{}", "{} x", "{},",
            "\u{FEFF}{}",
            "{\"req\":1", "{'req':1}", "{req:1}", "{\"req\":1,}", "{\"req\" 1}", "/* */{}", "{}\0",
        ]
        switch rng.below(4) {
        case 0: return body + Array(rng.pick([" x", "}", ",", "\0", "{}", " ", "\n"]).utf8)
        case 1: return Array(rng.pick(["[", " ", "\u{FEFF}", "\"", "0"]).utf8) + body
        default: return Array(rng.pick(variants).utf8)
        }
    }

    private func oversizedBody(_ rng: inout SplitMix64, seed: FuzzCorpus.Seed) -> [UInt8] {
        let size = maxBodyBytes + 1 + rng.below(3 * maxBodyBytes)
        var body = seed.frames[2]
        guard body.last == 0x7D else { return body + Array(repeating: 0x20, count: size) }
        body.removeLast()
        let padding = #","pad":""#.utf8.count + 2
        body += Array(#","pad":""#.utf8) + Array(repeating: 0x78, count: max(0, size - body.count - padding))
        body += [0x22, 0x7D]
        return body
    }

    // MARK: - JSON

    /// The body after one to three structure-aware mutations.
    func mutatedBody(_ body: FuzzJSON, _ rng: inout SplitMix64) -> [UInt8] {
        var tree = body
        for _ in 0..<(1 + rng.below(rng.below(3) == 0 ? 3 : 1)) {
            let index = rng.below(tree.nodeCount)
            tree.modify(at: index) { node in mutate(&node, &rng) }
        }
        return tree.bytes
    }

    private static let fieldNames = [
        "req", "session", "step", "name", "payload", "attachment", "seq", "last_seq", "create", "role", "heartbeat_ms",
        "serves", "reports", "presentable", "state", "action", "command", "op", "screen", "screens", "target", "ui",
        "root", "instance", "result", "code", "message", "type", "kind", "data", "sessions", "event", "text", "x", "",
    ]

    private func mutate(_ node: inout FuzzJSON, _ rng: inout SplitMix64) {
        switch (node, rng.below(10)) {
        case (.object(var members), 0..<6):
            switch rng.below(5) {
            case 0 where !members.isEmpty:
                members.remove(at: rng.below(members.count))
            case 1 where !members.isEmpty:
                // A duplicate key: same name, another value, before or after.
                let member = members[rng.below(members.count)]
                members.insert((member.key, randomValue(&rng)), at: rng.below(members.count + 1))
            case 2 where !members.isEmpty:
                let position = rng.below(members.count)
                members[position].key = mutatedName(members[position].key, &rng)
            default:
                members.insert((rng.pick(Self.fieldNames), randomValue(&rng)), at: rng.below(members.count + 1))
            }
            node = .object(members)
        case (.array(var values), 0..<6):
            switch rng.below(4) {
            case 0 where !values.isEmpty: values.remove(at: rng.below(values.count))
            case 1 where !values.isEmpty: values.append(values[rng.below(values.count)])
            case 2: values = []
            default: values.insert(randomValue(&rng), at: rng.below(values.count + 1))
            }
            node = .array(values)
        case (.string(let text), 0..<7):
            node = mutatedString(text, &rng)
        case (.token, 0..<7):
            node = .token(Array(rng.pick(Self.numberTokens).utf8))
        default:
            node = randomValue(&rng)
        }
    }

    private static let numberTokens = [
        "0", "-0", "1", "-1", "0.0", "-0.0", "1.0", "0.5", "1e2", "1E+2", "1e-2", "9007199254740992",
        "9007199254740993",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "99999999999999999999999999999999999999", "1e308", "1.8e308",
        "1e400", "-1e400", "1e-400", "4.9e-324", "2.2250738585072014e-308", "0.1", "123456789.123456789e-5",
        "NaN", "-NaN", "Infinity", "-Infinity", "nan", "inf", "-inf", "01", "00", "-01", "1.", ".5", "+1", "0x10", "1e",
        "1e+", "-", "--1", "1_000", "1,0", "١",
    ]

    private func randomValue(_ rng: inout SplitMix64) -> FuzzJSON {
        switch rng.below(14) {
        case 0: return .null
        case 1: return .bool(rng.below(2) == 0)
        case 2, 3: return .token(Array(rng.pick(Self.numberTokens).utf8))
        case 4, 5: return mutatedString(rng.pick(["default", "x", "", "FLOWD1", "wishlist"]), &rng)
        case 6: return .array([])
        case 7: return .object([])
        case 8: return .array([.null, .token([0x31]), .string("a")])
        case 9: return .object([(key: "name", value: .string("x")), (key: "payload", value: .null)])
        case 10, 11: return deepNesting(&rng)
        case 12:
            return .token(Array(rng.pick(["NaN", "Infinity", "-Infinity", "undefined", "None", "nil", "True"]).utf8))
        default: return .rawString(rng.bytes(rng.length(max: 24)).map { $0 == 0x22 ? 0x27 : $0 })
        }
    }

    /// Arrays or objects nested around the limits parsers set (64 in the fast path, 512 in Foundation) and far past
    /// them, written as one token so the test itself never recurses that deep.
    private func deepNesting(_ rng: inout SplitMix64) -> FuzzJSON {
        let depth = rng.pick([2, 10, 63, 64, 65, 100, 255, 256, 511, 512, 513, 1000, 4000, 20_000])
        let inner = Array(rng.pick(["1", "null", "{}", "[]", "\"x\"", "NaN"]).utf8)
        var token: [UInt8] = []
        token.reserveCapacity(depth * 7 + inner.count)
        if rng.below(2) == 0 {
            token += Array(repeating: 0x5B, count: depth) + inner + Array(repeating: 0x5D, count: depth)
        } else {
            for _ in 0..<depth { token += Array(#"{"a":"#.utf8) }
            token += inner + Array(repeating: 0x7D, count: depth)
        }
        if rng.below(8) == 0, !token.isEmpty { token.removeLast() }
        return .token(token)
    }

    private func mutatedString(_ text: String, _ rng: inout SplitMix64) -> FuzzJSON {
        switch rng.below(12) {
        case 0:
            // Long: from just past the name limits to far past the body limit.
            let count = rng.below(50) == 0 ? rng.inRange(1_000...300_000) : rng.pick([64, 65, 128, 129, 256, 257, 4096])
            return .string(String(repeating: rng.pick(["a", "é", "-", "😀"]), count: count))
        case 1:
            // Invalid UTF-8 and overlong forms, raw.
            let bad: [[UInt8]] = [
                [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
            ]
            return .rawString(Array(text.utf8.prefix(8)) + rng.pick(bad) + Array(text.utf8.dropFirst(8)))
        case 2:
            // Escapes: lone surrogates, NUL, invalid ones.
            let escapes = [
                #"\ud800"#, #"\udfff"#, #"\ud83d\ude00"#, #"\u0000"#, #"\x41"#, #"\u12"#, #"\/"#, #"\""#, #"\"#,
            ]
            return .rawString(Array(text.utf8) + Array(rng.pick(escapes).utf8))
        case 3:
            // Raw control characters inside the quotes.
            return .rawString(Array(text.utf8) + [rng.pick([0x00, 0x01, 0x0A, 0x1F, 0x7F])])
        case 4:
            return .string(rng.pick(["", " ", "a b", "a/b", "é", "null", "../..", "default\0", "DEFAULT", "default "]))
        case 5:
            return .string(mutatedName(text, &rng))
        case 6:
            return .token(Array(rng.pick(Self.numberTokens).utf8))
        default:
            var bytes = Array(text.utf8)
            if bytes.isEmpty { bytes = [0x61] }
            bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(7))
            return .rawString(bytes.map { $0 == 0x22 || $0 == 0x5C ? 0x5F : $0 })
        }
    }

    /// A name with one character changed, added or removed.
    private func mutatedName(_ name: String, _ rng: inout SplitMix64) -> String {
        var scalars = Array(name.unicodeScalars)
        let replacement = rng.pick(["_", "A", "0", ".", " ", "é", "\u{0}", "\""]).unicodeScalars.first!
        switch rng.below(3) {
        case 0 where !scalars.isEmpty: scalars.remove(at: rng.below(scalars.count))
        case 1 where !scalars.isEmpty: scalars[rng.below(scalars.count)] = replacement
        default: scalars.insert(replacement, at: rng.below(scalars.count + 1))
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }
}
