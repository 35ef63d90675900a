extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes from `start` are `text`'s: frames 0 and 1 against the protocol's literals, keys and verbatim
    /// text in ``FastJSONReader``, `true`/`false`/`null` in ``JSONSyntax``. A literal needs no static array (its lazy
    /// initialization, retain and release) and no generic `==`.
    @inline(__always)
    func holds(_ text: StaticString, at start: Int) -> Bool {
        text.withUTF8Buffer { expected in
            guard start + expected.count <= count else { return false }
            var offset = 0
            while offset < expected.count {
                if self[start + offset] != expected[offset] { return false }
                offset += 1
            }
            return true
        }
    }
}

extension [UInt8] {
    /// Whether the frame is `text`'s bytes, and nothing more.
    @inline(__always)
    func holds(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && withUnsafeBufferPointer { $0.holds(text, at: 0) }
    }
}
