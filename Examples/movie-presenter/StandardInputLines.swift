import Foundation

/// Standard input's lines, read on a thread of their own (reading blocks), as an async stream that ends at the end
/// of the input.
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line.trimmingCharacters(in: .whitespaces))
            }
            continuation.finish()
        }
        reader.name = "stdin"
        reader.start()
        return stream
    }
}
