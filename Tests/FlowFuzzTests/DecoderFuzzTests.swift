import FlowCore
import FlowWire
import TestFlows
import Testing

/// Part 1 of the fuzzing of issue 5: a million malformed and mutated frames through `WireCodec.decode`.
///
/// Every case either decodes to a message, which must then survive encode → decode unchanged, or throws a
/// `WireError` whose code is in `docs/PROTOCOL.md`'s table; nothing traps and nothing hangs. The run is fixed by its
/// seed (printed; `FLOWD_FUZZ_SEED` replays another), and each case by the seed and its index.
struct DecoderFuzzTests {
    static let caseCount = 1_000_000

    /// What one run found.
    struct Report: Sendable {
        var cases = 0
        var decoded = 0
        var codes = CodeTally()
        var byMutation: [String: (decoded: Int, refused: Int)] = [:]
        var failures: [String] = []
        var seconds = 0.0
        var cpuSeconds = 0.0
    }

    /// Runs `cases` cases of `seed`.
    static func run(seed: UInt64, cases: Int) -> Report {
        let fuzzer = FrameFuzzer()
        let codec = WireCodec()
        let documented = ProtocolCodes.documented
        var report = Report()
        func fail(_ index: Int, _ fuzzCase: FuzzCase, _ what: String) {
            guard report.failures.count < 20 else { return }
            report.failures.append("case \(index) (\(fuzzCase.mutation.rawValue)): \(what): \(fuzzCase.dump)")
        }
        let (_, seconds, cpuSeconds) = measure {
            for index in 0..<cases {
                var rng = SplitMix64(seed: seed, case: index)
                let fuzzCase = fuzzer.make(&rng)
                report.cases += 1
                do throws(WireError) {
                    let message = try codec.decode(fuzzCase.frames, from: .client)
                    report.decoded += 1
                    report.byMutation[fuzzCase.mutation.rawValue, default: (0, 0)].decoded += 1
                    let encoded = codec.encode(message)
                    do throws(WireError) {
                        let again = try codec.decode(encoded, from: message.sender)
                        if again != message {
                            fail(index, fuzzCase, "round trip changed \(message) into \(again)")
                        }
                    } catch {
                        fail(index, fuzzCase, "\(message) re-encoded does not decode: \(error)")
                    }
                } catch {
                    report.codes.add(error.code.rawValue)
                    report.byMutation[fuzzCase.mutation.rawValue, default: (0, 0)].refused += 1
                    if !documented.contains(error.code.rawValue) {
                        fail(index, fuzzCase, "undocumented code \(error.code)")
                    }
                    if error.message.isEmpty { fail(index, fuzzCase, "an error without text") }
                    switch error.code {
                    case .malformedBody, .invalidName, .messageTooLarge:
                        if error.type?.rawValue != String(decoding: fuzzCase.frames[1], as: UTF8.self) {
                            fail(index, fuzzCase, "\(error.code) names type \(String(describing: error.type))")
                        }
                    case .malformedFrame, .unsupportedVersion, .unknownType:
                        if error.type != nil { fail(index, fuzzCase, "\(error.code) names a type") }
                    default:
                        fail(index, fuzzCase, "the decoder threw \(error.code), a daemon-level code")
                    }
                    // The ERROR reply for it is itself a valid message (checked on a sample: it costs a JSONEncoder).
                    if index % 64 == 0 {
                        let reply = WireMessage.daemon(.error(ErrorReply(error)))
                        if (try? codec.decode(codec.encode(reply), from: .daemon)) != reply {
                            fail(index, fuzzCase, "its ERROR reply does not round-trip")
                        }
                    }
                }
            }
        }
        report.seconds = seconds
        report.cpuSeconds = cpuSeconds
        return report
    }

    /// Found by this fuzzing: `JSONDecoder` reads values nested up to 512 levels, `JSONEncoder` writes one level
    /// less, so a deep payload was accepted and then re-encoded as `{}` (and the daemon forwards payloads: EVENT,
    /// ACTION); decoding such a body also took quadratic time (40 ms for a 2 KB body). Bodies now nest at most
    /// `WireProtocol.maxNestingDepth` (64) levels; deeper is `malformedBody`, found by a linear scan.
    @Test func bodiesNestedBeyondTheLimitAreMalformedAndBodiesAtItRoundTrip() throws {
        let codec = WireCodec()
        #expect(WireProtocol.maxNestingDepth == 64)
        /// A STEP whose body nests `depth` levels: the body, the step, then the payload's arrays.
        func step(depth: Int, inString: Bool = false) -> [[UInt8]] {
            let arrays = depth - 2
            var payload = String(repeating: "[", count: arrays) + "1" + String(repeating: "]", count: arrays)
            if inString { payload = "\"" + payload + "\"" }
            let body = #"{"attachment":1,"req":7,"session":"default","step":{"name":"x","payload":"# + payload + "}}"
            return [WireProtocol.signature, Array("STEP".utf8), Array(body.utf8)]
        }
        let atLimit = try codec.decode(step(depth: 64), from: .client)
        #expect(try codec.decode(codec.encode(atLimit), from: .client) == atLimit)
        if case .client(.step(let body)) = atLimit {
            // What the daemon forwards with the step (its EVENT) is written and read back whole.
            let event = EventMessage(
                event: "did", session: "default", flow: "F", coordinator: 1, step: body.step, text: "did"
            )
            #expect(try codec.decodeEvent(codec.encodeEvent(event)) == event)
        }
        for depth in [65, 511, 512, 513, 100_000] {
            do throws(WireError) {
                let message = try codec.decode(step(depth: depth), from: .client)
                Issue.record("a body nested \(depth) levels decoded: \(message.type)")
            } catch {
                // Past 512 levels JSONDecoder reads nothing of the body, not even its req.
                let req: UInt64? = depth <= 512 ? 7 : nil
                #expect((error.code, error.req, error.type) == (.malformedBody, req, .step), "depth \(depth)")
            }
        }
        // Brackets inside strings do not count.
        #expect(throws: Never.self) { try codec.decode(step(depth: 1000, inString: true), from: .client) }
    }

    @Test func aMillionMutatedFramesDecodeAndRoundTripOrFailWithADocumentedCode() async throws {
        let seed = FuzzSeed.value
        let report = try await onDedicatedThread("fuzz-decoder") { Self.run(seed: seed, cases: Self.caseCount) }
        print(
            "decoder fuzz: seed \(FuzzSeed.hex(seed)), \(report.cases) cases in "
                + "\(String(format: "%.1f", report.seconds)) s "
                + "(thread CPU \(String(format: "%.1f", report.cpuSeconds)) s):"
                + " decoded=\(report.decoded) \(report.codes)"
        )
        for mutation in Mutation.allCases {
            let counts = report.byMutation[mutation.rawValue] ?? (0, 0)
            print("  \(mutation.rawValue): decoded=\(counts.decoded) refused=\(counts.refused)")
        }
        #expect(report.cases == Self.caseCount)
        #expect(report.decoded + report.codes.total == report.cases, "every case decoded or refused, once")
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        // The table was read, and every code the decoder can give was given: the fuzzer reaches every refusal.
        #expect(ProtocolCodes.documented.count >= 16)
        let decoderCodes: [WireError.Code] = [
            .malformedFrame, .unsupportedVersion, .unknownType, .malformedBody, .messageTooLarge, .invalidName,
        ]
        for code in decoderCodes { #expect(report.codes.counts[code.rawValue, default: 0] > 0, "no \(code)") }
        // Every way of mutating was used, and mutated messages do still decode sometimes.
        for mutation in Mutation.allCases { #expect(report.byMutation[mutation.rawValue] != nil, "\(mutation)") }
        #expect(report.decoded > Self.caseCount / 100)
    }
}
