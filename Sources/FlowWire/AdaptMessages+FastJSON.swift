import FlowCore

// ADAPT written and ADAPTED read by hand like a step's round trip (Messages+FastJSON.swift): an adapted step waits
// on both. Held to their `Codable` forms by FastPathTests.

extension AdaptMessage {
    func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"coordinator\":")
        writer.int(coordinator)
        writer.raw(",\"flow\":")
        writer.string(flow)
        writer.raw(",\"kind\":")
        writer.string(kind)
        writer.raw(",\"request\":")
        writer.int(request)
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw(",\"step\":")
        try writer.step(step)
        writer.raw("}")
    }
}

extension AdaptedMessage {
    /// Unknown fields are read and ignored; a known field seen twice, or an answer that is not one of the three,
    /// gives up (`JSONDecoder` then names the error).
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var session: String?
        var request: Int?
        var answer: String?
        var step: Step?
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "session") {
                guard session == nil else { throw FastPathUnsupported() }
                session = try reader.string()
            } else if reader.key(key, is: "request") {
                guard request == nil else { throw FastPathUnsupported() }
                request = try reader.integer()
            } else if reader.key(key, is: "answer") {
                guard answer == nil else { throw FastPathUnsupported() }
                answer = try reader.string()
            } else if reader.key(key, is: "step") {
                guard step == nil else { throw FastPathUnsupported() }
                step = try reader.step()
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        guard let session, let request, let answer else { throw FastPathUnsupported() }
        switch answer {
        case "allow": self.init(session: session, request: request, answer: .allow)
        case "refuse": self.init(session: session, request: request, answer: .refuse)
        case "replace":
            guard let step else { throw FastPathUnsupported() }
            self.init(session: session, request: request, answer: .replace(step))
        default: throw FastPathUnsupported()
        }
    }
}
