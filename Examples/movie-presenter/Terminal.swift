// The terminal under the interactive presenter: raw mode (termios), the alternate screen, its size, and the keys a
// person presses, decoded from the bytes of standard input. Plain ANSI escape sequences; no curses.

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A key a person pressed.
enum Key: Hashable, Sendable {
    /// A printable character.
    case character(Character)
    case up, down, left, right
    case enter
    case backspace
    case tab
    case backTab
    case escape
    /// Ctrl-C (raw mode: no SIGINT from the keyboard).
    case interrupt
    /// Ctrl-D.
    case endOfInput
    /// Ctrl-L.
    case redraw
}

/// Turns standard input's bytes into ``Key``s. A chunk read at once is one keystroke or a few: an escape sequence
/// (`ESC [ A`) arrives whole, a lone `ESC` is the Escape key.
enum KeyDecoder {
    static func keys(in bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    continue
                }
                index += 1
                // Parameters, then the final byte (0x40...0x7E).
                while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                guard index < bytes.count else { break }
                let final = bytes[index]
                index += 1
                switch final {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                case UInt8(ascii: "Z"): keys.append(.backTab)
                default: break
                }
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x09: keys.append(.tab)
            case 0x03: keys.append(.interrupt)
            case 0x04: keys.append(.endOfInput)
            case 0x0C: keys.append(.redraw)
            case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            case 0xC0...0xF7:
                // A UTF-8 sequence: its length is in the lead byte.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                let end = min(bytes.count, index - 1 + length)
                if let text = String(validating: bytes[(index - 1)..<end], as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                }
                index = end
            default:
                break
            }
        }
        return keys
    }
}

/// The controlling terminal: raw mode and the alternate screen while the UI runs, restored exactly once afterwards
/// (also when the UI ends on SIGTERM/SIGINT/SIGHUP: the service group's graceful shutdown unwinds through
/// ``restore()``).
///
/// `Sendable`: the saved settings are behind a mutex; writes are single `write(2)` calls of whole frames.
final class Terminal: Sendable {
    private let saved = Mutex<termios?>(nil)

    /// Whether standard input and standard output are both terminals.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Raw mode (no echo, no line editing, no signals from keys, no flow control), the alternate screen, cursor
    /// hidden.
    func enter() throws {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw TerminalError("standard input is not a terminal (tcgetattr: \(String(cString: strerror(errno))))")
        }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw TerminalError("cannot put the terminal in raw mode: \(String(cString: strerror(errno)))")
        }
        saved.withLock { $0 = original }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Leaves the alternate screen, shows the cursor and restores the terminal's settings. Idempotent.
    func restore() {
        let original = saved.withLock { saved -> termios? in
            defer { saved = nil }
            return saved
        }
        guard var original else { return }
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Columns and rows (80×24 when the terminal does not say).
    func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        let result = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard result == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes all of `text` to standard output.
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                systemWrite(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Standard input's keys, read on a thread of their own (reading blocks); the stream ends at the end of the input.
    static func keys() -> AsyncStream<Key> {
        let (stream, continuation) = AsyncStream.makeStream(of: Key.self)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for key in KeyDecoder.keys(in: Array(buffer[0..<count])) { continuation.yield(key) }
            }
            continuation.finish()
        }
        reader.name = "keys"
        reader.start()
        return stream
    }
}

/// `write(2)` (the method `write(_:)` hides the C function's name).
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// The terminal cannot be used.
struct TerminalError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
