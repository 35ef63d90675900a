import FlowCore
@testable import FlowFile
import Testing

struct TemplateTests {
    let here = SourceLocation(file: "t.yaml", line: 3, column: 5)

    @Test func aWholeReferenceKeepsItsType() throws {
        let template = try Template(parsing: "{payload}", at: here)
        #expect(template.isWholeReference)
        #expect(try template.evaluate(in: ["payload": .int(23452)]) == .int(23452))
    }

    @Test func referencesInTextAreWrittenIntoIt() throws {
        let template = try Template(parsing: "wishlist.movie.{payload.id}-{payload.title}", at: here)
        let payload: JSONValue = ["id": 7, "title": "Dune"]
        #expect(try template.evaluate(in: ["payload": payload]) == .string("wishlist.movie.7-Dune"))
        #expect(template.references.map(\.path) == [["payload", "id"], ["payload", "title"]])
        #expect(template.references.map(\.location.column) == [20, 33])
    }

    @Test func doubledBracesAreLiteral() throws {
        let template = try Template(parsing: "{{not}} {payload}", at: here)
        #expect(try template.evaluate(in: ["payload": "x"]) == .string("{not} x"))
    }

    @Test func aMissingFieldIsAnError() throws {
        let template = try Template(parsing: "{payload.id}", at: here)
        #expect(throws: TemplateError(template: "{payload.id}", missing: "payload.id")) {
            try template.evaluate(in: ["payload": .int(3)])
        }
    }

    @Test func malformedTemplatesSayWhere() {
        for (text, column, message) in [
            ("a{payload", 6, "template 'a{payload': a '{' is not closed"),
            ("a}b", 6, "template 'a}b': a '}' closes no '{'"),
            ("x{}", 6, "template 'x{}': '{}' is not a reference"),
            ("{payload..id}", 5, "template '{payload..id}': '{payload..id}' is not a reference"),
        ] {
            #expect(
                throws: FlowFileDiagnostic(
                    .badTemplate, at: SourceLocation(file: "t.yaml", line: 3, column: column), message,
                    fix: "write a reference as {payload} or {payload.field}, a literal brace as {{ or }}"
                )
            ) { try Template(parsing: text, at: here) }
        }
    }

    @Test func uriPatternsMatchWholeSegments() throws {
        let pattern = try URIPattern(parsing: "movies://wishlist/movie/{id:int}/cast/{name}", at: here)
        #expect(pattern.match("movies://wishlist/movie/23452/cast/Weaver%20S") == ["id": 23452, "name": "Weaver S"])
        #expect(pattern.match("movies://wishlist/movie/23452/cast/Weaver?x=1#top") == ["id": 23452, "name": "Weaver"])
        #expect(pattern.match("movies://wishlist/movie/abc/cast/Weaver") == nil)
        #expect(pattern.match("movies://wishlist/movie/1") == nil)
        #expect(pattern.match("films://wishlist/movie/1/cast/x") == nil)
        #expect(pattern.variables == ["id": .int, "name": .string])
    }
}
