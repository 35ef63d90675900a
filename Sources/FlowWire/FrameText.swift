extension [UInt8] {
    /// Whether the frame is `text`'s bytes. Frames 0 and 1 are checked on every message: compared with a literal, they
    /// need no static array (its lazy initialization, retain and release) and no generic `==`.
    @inline(__always)
    func holds(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { expected in
            guard count == expected.count else { return false }
            return withUnsafeBufferPointer { bytes in
                for index in 0..<expected.count where bytes[index] != expected[index] { return false }
                return true
            }
        }
    }
}
