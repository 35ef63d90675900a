import FlowCore
import FlowWire
import Foundation
import Testing

/// ``Nullable`` fields: written as `null` when `nil`, read as `nil` when `null` or missing, wrong types refused.
struct NullableTests {
    private struct Probe: Codable, Equatable {
        @Nullable var name: String?
        var count: Int
    }

    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aNilFieldIsWrittenAsNullAndAValueAsItself() throws {
        #expect(try json(Probe(name: nil, count: 1)) == #"{"count":1,"name":null}"#)
        #expect(try json(Probe(name: "x", count: 1)) == #"{"count":1,"name":"x"}"#)
    }

    @Test func aMissingOrNullFieldIsReadAsNil() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Probe.self, from: Data(#"{"count":2}"#.utf8)) == Probe(name: nil, count: 2))
        #expect(try decoder.decode(Probe.self, from: Data(#"{"count":2,"name":null}"#.utf8)) == Probe(name: nil, count: 2))
        #expect(try decoder.decode(Probe.self, from: Data(#"{"count":2,"name":"y"}"#.utf8)) == Probe(name: "y", count: 2))
        #expect(throws: DecodingError.self) { try decoder.decode(Probe.self, from: Data(#"{"count":2,"name":5}"#.utf8)) }
    }

    @Test func theWireTypesWriteTheirAbsentFieldsAsNull() throws {
        #expect(try json(ErrorReply(req: nil, code: .malformedBody, message: "m", type: nil))
            == #"{"code":"malformedBody","message":"m","req":null,"type":null}"#)
        #expect(try json(UISnapshot(root: nil, screens: [])) == #"{"root":null,"screens":[]}"#)
        #expect(try json(WireTree(root: nil)) == #"{"root":null}"#)
    }
}
