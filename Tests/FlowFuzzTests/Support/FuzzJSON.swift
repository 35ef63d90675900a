import FlowCore
import FlowWire

/// A JSON text as a tree that can also hold what JSON does not allow: duplicate keys (objects are lists of
/// members), raw tokens (`NaN`, `1e400`, `01`) and strings whose bytes are not valid UTF-8. The structure-aware fuzzer
/// mutates these trees and writes them out as bodies.
indirect enum FuzzJSON {
    case null
    case bool(Bool)
    /// A number, or any token, written as is.
    case token([UInt8])
    case string(String)
    /// The bytes between the quotes, written as is (invalid UTF-8, bad escapes, raw control characters).
    case rawString([UInt8])
    case array([FuzzJSON])
    case object([(key: String, value: FuzzJSON)])

    /// The tree of a JSON value.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .token(Array(String(number).utf8))
        case .double(let number): self = .token(Array("\(number)".utf8))
        case .string(let text): self = .string(text)
        case .array(let values): self = .array(values.map(FuzzJSON.init))
        case .object(let members):
            self = .object(members.keys.sorted().map { (key: $0, value: FuzzJSON(members[$0]!)) })
        }
    }

    /// The JSON text.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(to: &output)
        return output
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let flag): output.append(contentsOf: flag ? Array("true".utf8) : Array("false".utf8))
        case .token(let token): output.append(contentsOf: token)
        case .string(let text): Self.writeString(text, to: &output)
        case .rawString(let raw):
            output.append(0x22)
            output.append(contentsOf: raw)
            output.append(0x22)
        case .array(let values):
            output.append(0x5B)
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(0x2C) }
                value.write(to: &output)
            }
            output.append(0x5D)
        case .object(let members):
            output.append(0x7B)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(0x2C) }
                Self.writeString(member.key, to: &output)
                output.append(0x3A)
                member.value.write(to: &output)
            }
            output.append(0x7D)
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: output.append(contentsOf: [0x5C, 0x22])
            case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }

    /// The number of nodes, to pick one at random.
    var nodeCount: Int {
        switch self {
        case .array(let values): return 1 + values.reduce(0) { $0 + $1.nodeCount }
        case .object(let members): return 1 + members.reduce(0) { $0 + $1.value.nodeCount }
        default: return 1
        }
    }

    /// Replaces the node at pre-order position `index` (0 is this node) with what `change` makes of it.
    mutating func modify(at index: Int, _ change: (inout FuzzJSON) -> Void) {
        var remaining = index
        modify(remaining: &remaining, change)
    }

    /// Returns true when the node was found (and changed) inside this subtree.
    @discardableResult
    private mutating func modify(remaining: inout Int, _ change: (inout FuzzJSON) -> Void) -> Bool {
        if remaining == 0 {
            change(&self)
            return true
        }
        remaining -= 1
        switch self {
        case .array(var values):
            for position in values.indices where values[position].modify(remaining: &remaining, change) {
                self = .array(values)
                return true
            }
            return false
        case .object(var members):
            for position in members.indices where members[position].value.modify(remaining: &remaining, change) {
                self = .object(members)
                return true
            }
            return false
        default:
            return false
        }
    }
}
