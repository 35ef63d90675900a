import FlowCore
import FlowWire
import WireSamples

/// The seeds the fuzzer mutates: the sample messages (``WireSamples/messages``) as frames.
enum FuzzCorpus {
    /// Each sample message as its frames and its body's tree.
    static let seeds: [Seed] = {
        let codec = WireCodec()
        return WireSamples.messages.map { message in
            let frames = codec.encode(message)
            let value = (try? jsonValue(frames[2])) ?? .null
            return Seed(message: message, frames: frames, body: FuzzJSON(value))
        }
    }()

    struct Seed {
        let message: WireMessage
        let frames: [[UInt8]]
        let body: FuzzJSON
    }
}
