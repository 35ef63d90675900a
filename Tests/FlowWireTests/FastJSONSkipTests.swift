import FlowCore
import FlowWire
import Testing

/// ``FastJSONReader/skipValue(depth:)`` reads past exactly what ``FastJSONReader/value(depth:)`` reads.
struct FastJSONSkipTests {
    static let texts: [String] = [
        #"{}"#, #"[]"#, #"null"#, #"true"#, #"false"#, #"0"#, #"-12"#, #""text""#, #" { "a" : [ 1 , 2 ] } "#,
        #"{"a":{"b":[null,true,"c",{"d":-1}]},"e":"é"}"#, #"{"x":1,"y":2,"x":3}"#, #"{"é":1,"é":2}"#,
        #"{"é":1,"e\#u{301}":2}"#, #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":18}"#,
        #"1.5"#, #"1e3"#, #"01"#, #"-"#, #"99999999999999999999"#, #""a\"b""#, #""tab\#tin""#, #"{"a":1,}"#,
        #"[1 2]"#, #"{"a"}"#, #"nul"#, #""open"#, #"[1,2"#, #"{"#,
        String(repeating: "[", count: 63) + String(repeating: "]", count: 63),
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
    ]

    @Test("skipValue accepts and refuses what value does", arguments: texts)
    func skipAcceptsWhatValueReads(text: String) {
        let bytes = Array(text.utf8)
        let skipped: Bool? = FastJSONReader.read(bytes) { reader throws(FastPathUnsupported) in
            try reader.skipValue(depth: 0)
            return true
        }
        #expect((skipped != nil) == (FastJSONReader.value(bytes) != nil))
    }

    @Test("stringBytes gives the range of the text string reads, and a part of a text reads as a whole one")
    func stringBytesAndSlices() throws {
        let bytes = Array(#"xx["abc","é"]yy"#.utf8)
        let ranges = FastJSONReader.read(bytes[2..<bytes.count - 2]) { reader throws(FastPathUnsupported) in
            var ranges: [Range<Int>] = []
            try reader.array { reader throws(FastPathUnsupported) in ranges.append(try reader.stringBytes()) }
            return ranges
        }
        #expect(ranges == [2..<5, 8..<10])
        #expect(FastJSONReader.read(bytes[...]) { reader throws(FastPathUnsupported) in try reader.value(depth: 0) } == nil)
    }
}
