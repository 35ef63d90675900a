import FlowCore
import FlowWire
import Foundation
import Testing

/// The three frames of a control message: signature, type and body, as a client would put them on the wire.
func frames(_ type: String, _ body: String, signature: String = "FLOWD1") -> [[UInt8]] {
    [Array(signature.utf8), Array(type.utf8), Array(body.utf8)]
}

/// The error `codec` throws for `frames`, or `nil` when they decode.
func decodingError(_ frames: [[UInt8]], codec: WireCodec = WireCodec()) -> WireError? {
    do {
        _ = try codec.decode(frames, from: .client)
        return nil
    } catch {
        return error
    }
}

/// A JSON text parsed as a JSON value (to compare bodies without caring about key order or spacing).
func jsonValue(_ text: some Collection<UInt8>) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text))
}

/// The keys of a JSON object (empty for anything else).
func keys(of value: JSONValue) -> Set<String> {
    if case .object(let members) = value { return Set(members.keys) }
    return []
}

/// `docs/PROTOCOL.md`, read from the repository this test file lives in.
enum ProtocolDocument {
    static let text: String = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // FlowWireTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("docs/PROTOCOL.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The contents of every fenced block of the given language (` ```json `), in order.
    static func fencedBlocks(language: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The lines of the document's section whose heading starts with `heading` (up to the next heading of the same
    /// or a higher level).
    static func section(_ heading: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [] }
        let level = lines[start].prefix { $0 == "#" }.count
        var end = start + 1
        while end < lines.count {
            let hashes = lines[end].prefix { $0 == "#" }.count
            if hashes > 0, hashes <= level, lines[end].dropFirst(hashes).first == " " { break }
            end += 1
        }
        return Array(lines[start..<end])
    }
}
