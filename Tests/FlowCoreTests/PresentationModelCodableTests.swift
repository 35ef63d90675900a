import FlowCore
import Foundation
import Testing

/// The UI model as data: a state snapshot saves it and a recovery reads it back.
@Suite struct PresentationModelCodableTests {
    /// Every kind of container and placement: a stack with entries, tabs with a selection, a split with master and
    /// detail, modals on modals, screens with data.
    private func richModel() throws -> PresentationModel {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("app")))
        _ = try model.apply(.push(.view("home", type: "Home", data: ["user": "demo"]), onto: "app"))
        _ = try model.apply(.push(.tabs("dashboard"), onto: "app"))
        _ = try model.apply(.setTabs("dashboard", [.stack("wishlist"), .stack("watched"), .split("settings")], selected: 2))
        _ = try model.apply(.push(.view("movie.1", type: "Movie", data: ["id": 1]), onto: "wishlist"))
        _ = try model.apply(.showMaster("settings", .view("settings.list", type: "SettingsList")))
        _ = try model.apply(.showDetail("settings", .view("settings.api", type: "ApiKey")))
        _ = try model.apply(.present(.stack("about"), over: "dashboard"))
        _ = try model.apply(.push(.view("about.page", type: "About"), onto: "about"))
        _ = try model.apply(.present(.alert("confirm", message: "Sure?"), over: "about.page"))
        return model
    }

    private func json(_ model: PresentationModel) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(model), as: UTF8.self)
    }

    @Test func aModelReadBackIsTheSameModelWithTheSameBytes() throws {
        let model = try richModel()
        let bytes = try json(model)
        let decoded = try JSONDecoder().decode(PresentationModel.self, from: Data(bytes.utf8))
        #expect(decoded == model)
        #expect(decoded.description == model.description)
        #expect(try json(decoded) == bytes)
    }

    @Test func aNodeSavesOnlyWhatCannotBeDerived() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("nav")))
        _ = try model.apply(.push(.view("movie.7", type: "Movie"), onto: "nav"))
        #expect(
            try json(model)
                == #"{"nodes":[{"id":"movie.7","type":"Movie"},{"children":["movie.7"],"id":"nav","kind":"stack"}],"root":"nav"}"#
        )
    }

    @Test func theFirstFormatWithPlacementsIsStillRead() throws {
        let first = #"""
            {"nodes":[
              {"id":"movie.7","node":{"children":[],"placement":{"child":{"of":"nav"}},
                "screen":{"data":null,"id":"movie.7","kind":"view","type":"Movie"},"selectedTab":0}},
              {"id":"nav","node":{"children":["movie.7"],"placement":{"window":{}},
                "screen":{"data":null,"id":"nav","kind":"stack","type":"stack"},"selectedTab":0}}
            ],"root":"nav"}
            """#
        var expected = PresentationModel()
        _ = try expected.apply(.setRoot(.stack("nav")))
        _ = try expected.apply(.push(.view("movie.7", type: "Movie"), onto: "nav"))
        #expect(try JSONDecoder().decode(PresentationModel.self, from: Data(first.utf8)) == expected)
    }

    @Test(arguments: [
        #"{"nodes":[{"id":"nav","kind":"stack"},{"id":"lost","type":"Movie"}],"root":"nav"}"#,
        #"{"nodes":[{"id":"nav","kind":"stack","children":["a","a"]},{"id":"a"}],"root":"nav"}"#,
        #"{"nodes":[{"id":"nav","kind":"stack","children":["gone"]}],"root":"nav"}"#,
    ])
    func aTreeThatContradictsItselfIsRefused(text: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PresentationModel.self, from: Data(text.utf8)) }
    }
}
