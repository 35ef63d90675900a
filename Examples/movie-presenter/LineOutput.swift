import Foundation
import Synchronization

/// Writes whole lines to standard output, unbuffered, from any task. `Sendable`: behind a mutex.
final class LineOutput: Sendable {
    private let lock = Mutex(())

    func write(_ lines: [String]) {
        let text = lines.map { $0 + "\n" }.joined()
        lock.withLock { _ in FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    func write(_ line: String) { write([line]) }
}
