import FlowCore
@testable import FlowFile
import Testing

/// A URI against a deep link's pattern: its variables' values, `%XX` decoded.
struct URIPatternTests {
    let pattern: URIPattern

    init() throws {
        pattern = try URIPattern(
            parsing: "shop://search/{q}/page/{n:int}", at: SourceLocation(file: "t.yaml", line: 1, column: 1))
    }

    @Test func escapesAreDecoded() {
        #expect(pattern.match("shop://search/red%20shoes/page/2") == ["q": "red shoes", "n": 2])
        #expect(pattern.match("shop://search/caf%C3%A9/page/1?x=1#top") == ["q": "café", "n": 1])
    }

    @Test func aPercentThatIsNoEscapeIsKeptAsWritten() {
        #expect(pattern.match("shop://search/50%zz/page/1") == ["q": "50%zz", "n": 1])
        #expect(pattern.match("shop://search/100%/page/1") == ["q": "100%", "n": 1])
        #expect(pattern.match("shop://search/1%2/page/1") == ["q": "1%2", "n": 1])
        #expect(pattern.match("shop://search/%2%41/page/1") == ["q": "%2A", "n": 1])
        #expect(pattern.match("shop://search/%+f/page/1") == ["q": "%+f", "n": 1])
    }

    @Test func aPatternWithAQueryOrFragmentIsRefused() {
        let here = SourceLocation(file: "t.yaml", line: 1, column: 1)
        #expect(throws: FlowFileDiagnostic.self) { try URIPattern(parsing: "shop://search?q={q}", at: here) }
        #expect(throws: FlowFileDiagnostic.self) { try URIPattern(parsing: "shop://help#top", at: here) }
    }

    @Test func otherURIsDoNotMatch() {
        #expect(pattern.match("shop://search/x/page/two") == nil)
        #expect(pattern.match("shop://search/x") == nil)
        #expect(pattern.match("mall://search/x/page/1") == nil)
    }
}
