import FlowCore
import FlowFile
import Foundation
import Testing

/// docs/flowfile.schema.json parses, and the example files (and FLOWFILE.md's example) follow it: checked by a small
/// JSON Schema reader below that knows the keywords the schema uses (type, properties, additionalProperties,
/// required, items, oneOf, enum, const, $ref).
struct FlowFileSchemaTests {
    let schema: JSONValue

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: repositoryPath("docs/flowfile.schema.json")))
        schema = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    func document(_ relative: String) throws -> JSONValue {
        let path = repositoryPath(relative)
        return try FileNode.read(String(contentsOfFile: path, encoding: .utf8), file: path).json
    }

    /// One name where a list of names is written (a list of one), in FLOWFILE.md's example: both read it.
    @Test func oneNameIsAListOfOneForBoth() throws {
        let cases: [(old: String, new: String)] = [
            ("- setStack: [home]", "- setStack: home"), ("{steps: [greetingIsReady]", "{steps: greetingIsReady"),
            ("    steps: [aboutIsRequired]", "    steps: aboutIsRequired"),
        ]
        try expectBothTake(cases)
    }

    /// Shapes next to the refused ones above that the reader takes: the schema takes them too.
    @Test func theSchemaTakesWhatTheReaderTakes() throws {
        let cases: [(old: String, new: String)] = [
            ("{payload: string, summary", "{payload: {type: object}, summary"),
            ("{payload: string, summary", "{payload: {type: object, fields: {n: {fields: {m: int}}}}, summary"),
            ("{payload: string, summary", "{payload: {fields: {n: {type: object}}, describe: x}, summary"),
            ("        end: aboutIsComplete ", "        end: aboutIsComplete\n        contribute: [] "),
            ("flowfile: 1\n", "flowfile: 1.0\n"),
            ("stepper: {one: aboutIsShown}", "stepper: {one: {step: aboutIsShown, payload: null}}"),
            ("stepper: {one: aboutIsShown}", "stepper: {composite: [{one: aboutIsShown}, {composite: [{one: aboutIsShown}]}]}"),
        ]
        try expectBothTake(cases)
    }

    /// Plain scalars read as YAML 1.2's core schema has them, as a YAML editor hands them to the schema.
    @Test func scalarsAreReadByTheCoreSchema() throws {
        let cases: [(text: String, value: JSONValue)] = [
            ("~", .null), ("Null", .null), ("NULL", .null), ("True", .bool(true)), ("FALSE", .bool(false)),
            ("+12", .int(12)), ("-3", .int(-3)), ("0o17", .int(15)), ("0x1F", .int(31)), ("+1.5", .double(1.5)),
            ("-.5e1", .double(-5)), ("1e3", .double(1000)), ("yes", .string("yes")), ("-inf", .string("-inf")),
            (".nan", .string(".nan")), ("1_000", .string("1_000")), ("0x", .string("0x")), ("1e", .string("1e")),
            ("12abc", .string("12abc")), ("'12'", .string("12")),
        ]
        for (text, value) in cases {
            #expect(try FileNode.read("v: \(text)\n", file: "t.yaml").json == .object(["v": value]), "\(text)")
        }
        try expectBothTake([("{summary: \"show the About modal\", deepLink: true}", "{deepLink: True}")])
    }

    /// FLOWFILE.md's example with each `old` replaced by its `new`: the reader and the schema both take it.
    func expectBothTake(_ cases: [(old: String, new: String)]) throws {
        for (old, new) in cases {
            let text = try exampleOfTheGuide().replacingOccurrences(of: old, with: new)
            #expect(text.contains(new))
            #expect(codes(text) == [], "\(new)")
            #expect(SchemaReader(schema).errors(in: try FileNode.read(text, file: "FLOWFILE.md").json) == [], "\(new)")
        }
    }

    /// The codes of what the reader finds wrong in `text`.
    func codes(_ text: String) -> [FlowFileDiagnostic.Code] {
        do throws(FlowFileErrors) {
            _ = try FlowFile.parse(text, file: "FLOWFILE.md")
            return []
        } catch {
            return error.diagnostics.map(\.code)
        }
    }

    /// The YAML of FLOWFILE.md's "An example".
    func exampleOfTheGuide() throws -> String {
        let guide = try String(contentsOfFile: repositoryPath("docs/FLOWFILE.md"), encoding: .utf8)
        let afterHeading = try #require(guide.range(of: "## An example")).upperBound
        let start = try #require(guide.range(of: "```yaml\n", range: afterHeading..<guide.endIndex)).upperBound
        let end = try #require(guide.range(of: "```", range: start..<guide.endIndex)).lowerBound
        return String(guide[start..<end])
    }

    @Test func theSchemaUsesOnlyWhatThisReaderKnows() {
        #expect(SchemaReader(schema).unknownKeywords(in: schema) == [])
    }

    @Test func theExamplesFollowIt() throws {
        for file in ["Examples/flowfiles/movies.flows.yaml", "Examples/flowfiles/hello.flows.json"] {
            #expect(SchemaReader(schema).errors(in: try document(file)) == [], "\(file)")
        }
    }

    @Test func theGuidesExampleFollowsItAndLoads() throws {
        let text = try exampleOfTheGuide()
        #expect(SchemaReader(schema).errors(in: try FileNode.read(text, file: "FLOWFILE.md").json) == [])
        let app = try FlowFile.parse(text, file: "FLOWFILE.md")
        let hello = try FlowFile.load(path: repositoryPath("Examples/flowfiles/hello.flows.json"))
        #expect(app.vocabulary == hello.vocabulary)
        #expect(FlowGraph(app) == FlowGraph(hello))
    }

    @Test func aKeyTheFormatDoesNotHaveBreaksIt() throws {
        guard case .object(var top) = try document("Examples/flowfiles/hello.flows.json"),
            case .object(var flows) = top["flows"], case .object(var hello) = flows["hello"]
        else {
            Issue.record("the example's shape changed")
            return
        }
        hello["navigat"] = .object([:])
        flows["hello"] = .object(hello)
        top["flows"] = .object(flows)
        #expect(SchemaReader(schema).errors(in: .object(top)) == ["flows.hello: 'navigat' is not allowed"])
    }

    /// Keys and shapes the reader refuses, in FLOWFILE.md's example: the schema refuses each too.
    @Test func theSchemaRefusesWhatTheReaderRefuses() throws {
        let cases: [(old: String, new: String, code: FlowFileDiagnostic.Code)] = [
            ("          - push: greeting ", "          - {push: greeting, in: root} ", .unknownKey),
            ("{payload: string, summary", "{payload: {fields: {text: {typ: string}}}, summary", .unknownKey),
            ("stepper: {one: aboutIsShown}", "stepper: {one: aboutIsShown, initial: aboutIsShown}", .notAllowedHere),
            ("{actions: {close: aboutIsComplete}}", "{actions: {close: aboutIsComplete}, context: 1}", .notAllowedHere),
            (
                "            stepper: {one: aboutIsShown}",
                "            stepper: {one: aboutIsShown}\n            allowStepWhenNotPresented: true", .notAllowedHere
            ),
            ("            stepper: {one: aboutIsShown}", "            steppers: [{one: aboutIsShown}]", .notAllowedHere),
            ("stepper: {one: aboutIsShown}", "stepper: {composite: []}", .missingStepper),
            ("stepper: {one: aboutIsShown}", "stepper: {composite: {one: aboutIsShown}}", .wrongType),
            ("stepper: {one: aboutIsShown}", "stepper: {composite: [{one: aboutIsShown}], initial: aboutIsShown}", .notAllowedHere),
            ("{payload: string, summary", "{payload: {type: int, fields: {n: int}}, summary", .wrongType),
            ("app: hello", "app: 2024", .wrongType),
            ("{summary: \"closes it\"}", "{summary: true}", .wrongType),
            ("{id: hello.home, type: Home}", "{id: hello.home, type: }", .wrongType),
            ("{payload: string, summary", "{payload: {fields: {n: {type: int, fields: {m: int}}}}, summary", .wrongType),
            (
                "        end: aboutIsComplete ",
                "        end: aboutIsComplete\n        contribute: [{forwardToParentFlow: aboutIsComplete}] ",
                .endWithContributors
            ),
            ("          - setStack: [home]", "          - setStack: [home]\n          - selectTab: -1", .wrongType),
            (
                "          - setStack: [home]", "          - setStack: [home]\n          - {setTabs: [home], selected: -1}",
                .wrongType
            ),
        ]
        for (old, new, code) in cases {
            let text = try exampleOfTheGuide().replacingOccurrences(of: old, with: new)
            #expect(codes(text) == [code], "\(new)")
            #expect(SchemaReader(schema).errors(in: try FileNode.read(text, file: "FLOWFILE.md").json) != [], "\(new)")
        }
    }
}

/// The part of JSON Schema (2020-12) the flow file's schema uses.
struct SchemaReader {
    let root: JSONValue
    static let keywords: Set<String> = [
        "$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties", "additionalProperties",
        "required", "items", "oneOf", "enum", "const", "minimum", "minItems", "maxItems", "dependentSchemas",
    ]

    init(_ root: JSONValue) { self.root = root }

    /// Keywords of `schema` this reader does not know.
    func unknownKeywords(in schema: JSONValue) -> [String] {
        guard case .object(let members) = schema else { return [] }
        var unknown = members.keys.filter { !Self.keywords.contains($0) }.sorted()
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "properties", "$defs":
                if case .object(let children) = value {
                    for child in children.values { unknown += unknownKeywords(in: child) }
                }
            case "oneOf":
                if case .array(let children) = value { for child in children { unknown += unknownKeywords(in: child) } }
            case "dependentSchemas":
                if case .object(let children) = value {
                    for child in children.values { unknown += unknownKeywords(in: child) }
                }
            case "items", "additionalProperties": unknown += unknownKeywords(in: value)
            default: break
            }
        }
        return unknown
    }

    /// What does not follow the schema, as `path: what`.
    func errors(in value: JSONValue) -> [String] { errors(value, root, path: "") }

    private func errors(_ value: JSONValue, _ schema: JSONValue, path: String) -> [String] {
        guard case .object(let rule) = schema else { return [] }
        let at = path.isEmpty ? "(top)" : path
        if case .string(let ref) = rule["$ref"] {
            let name = String(ref.dropFirst("#/$defs/".count))
            guard case .object(let top) = root, case .object(let defs) = top["$defs"], let target = defs[name] else {
                return ["\(at): no \(ref)"]
            }
            return errors(value, target, path: path)
        }
        var found: [String] = []
        if case .string(let type) = rule["type"], !Self.has(value, type: type) {
            return ["\(at): not of type \(type)"]
        }
        if let constant = rule["const"], Self.number(constant) ?? constant != Self.number(value) ?? value {
            found.append("\(at): not \(constant)")
        }
        if case .array(let options) = rule["enum"], !options.contains(value) { found.append("\(at): \(value) is not allowed") }
        if case .int(let minimum) = rule["minimum"], case .int(let number) = Self.number(value) ?? value,
            number < minimum
        {
            found.append("\(at): \(number) is less than \(minimum)")
        }
        if case .int(let minimum) = rule["minItems"], case .array(let items) = value, items.count < minimum {
            found.append("\(at): fewer than \(minimum) items")
        }
        if case .int(let maximum) = rule["maxItems"], case .array(let items) = value, items.count > maximum {
            found.append("\(at): more than \(maximum) items")
        }
        if case .object(let dependents) = rule["dependentSchemas"], case .object(let members) = value {
            for (key, dependent) in dependents.sorted(by: { $0.key < $1.key }) where members[key] != nil {
                found += errors(value, dependent, path: path)
            }
        }
        if case .object(let members) = value {
            let properties: [String: JSONValue]
            if case .object(let declared) = rule["properties"] { properties = declared } else { properties = [:] }
            if case .array(let required) = rule["required"] {
                for case .string(let key) in required where members[key] == nil { found.append("\(at): '\(key)' is required") }
            }
            for key in members.keys.sorted() {
                let child = path.isEmpty ? key : "\(path).\(key)"
                if let property = properties[key] {
                    found += errors(members[key]!, property, path: child)
                } else if rule["additionalProperties"] == .bool(false) {
                    found.append("\(at): '\(key)' is not allowed")
                } else if let additional = rule["additionalProperties"] {
                    found += errors(members[key]!, additional, path: child)
                }
            }
        }
        if case .array(let items) = value, let itemRule = rule["items"] {
            for (index, item) in items.enumerated() { found += errors(item, itemRule, path: "\(path)[\(index)]") }
        }
        if case .array(let options) = rule["oneOf"] {
            let matching = options.filter { errors(value, $0, path: path).isEmpty }.count
            if matching != 1 { found.append("\(at): matches \(matching) of the oneOf options, not 1") }
        }
        return found
    }

    /// A number with no fraction as `.int`, as JSON Schema compares numbers (`1.0` is the integer 1).
    private static func number(_ value: JSONValue) -> JSONValue? {
        if case .double(let double) = value, let int = Int(exactly: double) { return .int(int) }
        return nil
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, number(value) ?? value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null),
            ("integer", .int), ("number", .int), ("number", .double):
            return true
        default:
            return false
        }
    }
}
