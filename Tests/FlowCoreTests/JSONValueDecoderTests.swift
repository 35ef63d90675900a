import FlowCore
import Foundation
import Testing

/// `JSONValueDecoder` types a value already read as `JSONDecoder` types the same text, and refuses (so that callers
/// fall back to `JSONDecoder`) whatever it might read otherwise.
@Suite struct JSONValueDecoderTests {
    enum Mode: Codable, Hashable {
        case off
        case on(level: Int, label: String?)
    }

    enum Colour: String, Codable, Hashable { case red, green }

    struct Shape: Codable, Hashable {
        var name: String
        var count: Int
        var small: Int8
        var wide: UInt64
        var flag: Bool
        var ratio: Double
        var optional: String?
        var absent: Int?
        var list: [Int]
        var nested: [[String]]
        var byName: [String: Int]
        var byNumber: [Int: String]
        var modes: [Mode]
        var colour: Colour
        var id: PresentableID
        var value: JSONValue
        var step: Step?
    }

    static let text = #"""
        {"name":"a","count":-3,"small":127,"wide":9007199254740993,"flag":true,"ratio":5,"optional":null,
         "list":[1,2,3],"nested":[[],["x","y"]],"byName":{"a":1,"b":2},"byNumber":{"1":"one","20":"twenty"},
         "modes":[{"off":{}},{"on":{"level":2,"label":"high"}},{"on":{"level":0}}],"colour":"green","id":"movie.7",
         "value":{"k":[null,true,"s",{"n":1}]},"step":{"name":"open","payload":{"id":4}},"ignored":[1,{"x":2}]}
        """#

    private func value(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test func typesAValueAsJSONDecoderTypesItsText() throws {
        let expected = try JSONDecoder().decode(Shape.self, from: Data(Self.text.utf8))
        #expect(try JSONValueDecoder.decode(Shape.self, from: value(Self.text)) == expected)
        #expect(expected.modes == [.off, .on(level: 2, label: "high"), .on(level: 0, label: nil)])
        #expect(expected.ratio == 5 && expected.absent == nil && expected.byNumber[20] == "twenty")
    }

    @Test(arguments: [
        #"{"v":1.5}"#,  // a double: its text is what JSONDecoder reads
        #"{"v":128}"#,  // does not fit an Int8
        #"{"v":"1"}"#,  // a string for a number
        #"{"w":1}"#,  // a missing key
        #"{"v":null}"#,  // null for a value
    ])
    func refusesWhatItMightReadOtherwise(text: String) throws {
        struct Small: Codable { var v: Int8 }
        let value = try value(text)
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(Small.self, from: value) }
    }

    @Test func refusesTheTypesJSONDecoderReadsItsOwnWay() throws {
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(Date.self, from: .int(5)) }
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(URL.self, from: .string("https://a.b")) }
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(Data.self, from: .string("AAAA")) }
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(Double.self, from: .int(1 << 60 + 1)) }
    }

    @Test func readsTheSavedUIModelInBothFormats() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("app")))
        _ = try model.apply(.push(.view("home", type: "Home", data: ["user": "demo"]), onto: "app"))
        _ = try model.apply(.push(.tabs("dashboard"), onto: "app"))
        _ = try model.apply(.setTabs("dashboard", [.stack("wishlist"), .split("settings")], selected: 1))
        _ = try model.apply(.showMaster("settings", .view("settings.list", type: "SettingsList")))
        _ = try model.apply(.showDetail("settings", .view("settings.api", type: "ApiKey")))
        _ = try model.apply(.present(.stack("about"), over: "dashboard"))
        _ = try model.apply(.present(.alert("confirm", message: "Sure?"), over: "about"))
        let saved = try JSONEncoder().encode(model)
        #expect(try JSONValueDecoder.decode(PresentationModel.self, from: value(String(decoding: saved, as: UTF8.self))) == model)

        let first = #"""
            {"nodes":[
              {"id":"movie.7","node":{"children":[],"placement":{"child":{"of":"nav"}},
                "screen":{"data":null,"id":"movie.7","kind":"view","type":"Movie"},"selectedTab":0}},
              {"id":"nav","node":{"children":["movie.7"],"placement":{"window":{}},
                "screen":{"data":null,"id":"nav","kind":"stack","type":"stack"},"selectedTab":0}}
            ],"root":"nav"}
            """#
        let expected = try JSONDecoder().decode(PresentationModel.self, from: Data(first.utf8))
        #expect(try JSONValueDecoder.decode(PresentationModel.self, from: value(first)) == expected)
    }

    @Test(arguments: [
        #"{"nodes":[{"id":"nav","kind":"stack"},{"id":"lost","type":"Movie"}],"root":"nav"}"#,
        #"{"nodes":[{"id":"nav","kind":"stack","children":["a","a"]},{"id":"a"}],"root":"nav"}"#,
        #"{"nodes":[{"id":"nav","kind":"stack","children":["gone"]}],"root":"nav"}"#,
        #"{"nodes":[{"id":"nav","kind":"stack","children":[7]}],"root":"nav"}"#,
    ])
    func aUIModelThatContradictsItselfIsRefused(text: String) throws {
        let value = try value(text)
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(PresentationModel.self, from: value) }
    }
}
