import FlowCore
import FlowWire
import Foundation
import Testing

/// A command and its JSON, exactly as the codec writes it (keys sorted).
struct CommandJSON: Sendable, CustomTestStringConvertible {
    let command: NavigationCommand
    let json: String
    var testDescription: String { json }
}

/// The table of `docs/PROTOCOL.md` §6.3: `op` → its fields.
let documentedOps: [String: Set<String>] = [
    "setRoot": ["screen"],
    "push": ["screen", "target"],
    "pop": ["target"],
    "popToRoot": ["target"],
    "setStack": ["target", "screens"],
    "present": ["screen", "target"],
    "dismiss": ["target"],
    "setTabs": ["target", "screens", "selected"],
    "selectTab": ["target", "index"],
    "showMaster": ["target", "screen"],
    "showDetail": ["target", "screen"],
]

private let movieJSON = #"{"data":{"movie":1},"id":"movie","kind":"view","type":"MovieDetail"}"#

let commandJSONs: [CommandJSON] = [
    CommandJSON(
        command: .setRoot(.stack("app")),
        json: #"{"op":"setRoot","screen":{"data":null,"id":"app","kind":"stack","type":"stack"}}"#
    ),
    CommandJSON(
        command: .push(.view("movie", type: "MovieDetail", data: ["movie": 1]), onto: "wishlist"),
        json: #"{"op":"push","screen":\#(movieJSON),"target":"wishlist"}"#
    ),
    CommandJSON(command: .pop(stack: "wishlist"), json: #"{"op":"pop","target":"wishlist"}"#),
    CommandJSON(command: .popToRoot(stack: "wishlist"), json: #"{"op":"popToRoot","target":"wishlist"}"#),
    CommandJSON(
        command: .setStack("wishlist", [.view("movie", type: "MovieDetail", data: ["movie": 1])]),
        json: #"{"op":"setStack","screens":[\#(movieJSON)],"target":"wishlist"}"#
    ),
    CommandJSON(
        command: .present(.alert("alert", message: "Hi"), over: "app"),
        json: #"{"op":"present","screen":{"data":"Hi","id":"alert","kind":"alert","type":"alert"},"target":"app"}"#
    ),
    CommandJSON(command: .dismiss(presentedOver: "app"), json: #"{"op":"dismiss","target":"app"}"#),
    CommandJSON(
        command: .setTabs("dashboard", [.stack("a"), .stack("b")], selected: 1),
        json: #"{"op":"setTabs","screens":[{"data":null,"id":"a","kind":"stack","type":"stack"},"#
            + #"{"data":null,"id":"b","kind":"stack","type":"stack"}],"selected":1,"target":"dashboard"}"#
    ),
    CommandJSON(
        command: .selectTab("dashboard", index: 2), json: #"{"index":2,"op":"selectTab","target":"dashboard"}"#),
    CommandJSON(
        command: .showMaster("split", .view("movie", type: "MovieDetail", data: ["movie": 1])),
        json: #"{"op":"showMaster","screen":\#(movieJSON),"target":"split"}"#
    ),
    CommandJSON(
        command: .showDetail("split", .view("movie", type: "MovieDetail", data: ["movie": 1])),
        json: #"{"op":"showDetail","screen":\#(movieJSON),"target":"split"}"#
    ),
]

struct WireCommandTests {
    private func encoded(_ command: NavigationCommand) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(WireCommand(command)), as: UTF8.self)
    }

    @Test(arguments: commandJSONs)
    func commandEncodesAsTheTableSays(_ example: CommandJSON) throws {
        let json = try encoded(example.command)
        #expect(json == example.json)
        // The fields are `op` and those of the table's row, no more, no less.
        let value = try jsonValue(Array(json.utf8))
        guard case .object(let members) = value, case .string(let op)? = members["op"] else {
            Issue.record("no op in \(json)")
            return
        }
        let fields = try #require(documentedOps[op], "op '\(op)' is not in the table")
        #expect(keys(of: value) == fields.union(["op"]))
    }

    @Test(arguments: commandJSONs)
    func commandDecodesFromItsJSON(_ example: CommandJSON) throws {
        let decoded = try JSONDecoder().decode(WireCommand.self, from: Data(example.json.utf8))
        #expect(decoded.command == example.command)
    }

    @Test func everyOpIsTested() {
        let ops = Set(
            commandJSONs.compactMap { example -> String? in
                guard case .object(let members)? = try? jsonValue(Array(example.json.utf8)) else { return nil }
                return members["op"]?.stringValue
            }
        )
        #expect(ops == Set(documentedOps.keys))
        #expect(commandJSONs.count == everyCommand.count)
    }

    @Test func theTableInTheDocumentIsTheOneTested() {
        // Read the op table of § 6.3 from the document: | `op` | `field`, `field` (comment) | meaning |
        let rows = ProtocolDocument.section("### 6.3").filter { $0.hasPrefix("| `") }
        var table: [String: Set<String>] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let op = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            // The field names are the back-quoted words of the second cell.
            let quoted = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            table[op] = Set(quoted)
        }
        #expect(table == documentedOps)
    }

    @Test func aMissingFieldOrUnknownOpDoesNotDecode() {
        let bad = [
            #"{"op":"push","target":"wishlist"}"#,
            #"{"op":"setTabs","target":"t","screens":[]}"#,
            #"{"op":"selectTab","target":"t"}"#,
            #"{"op":"fly","target":"t"}"#,
            #"{"target":"t"}"#,
        ]
        for json in bad {
            #expect(throws: DecodingError.self, "\(json)") {
                try JSONDecoder().decode(WireCommand.self, from: Data(json.utf8))
            }
        }
    }
}
