#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: the one clock every process of the benchmark shares, so a timestamp taken in the
/// stepper can be compared with a receive time taken in the presenter.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Writes one line to standard output and flushes it: how a child process talks to the orchestrator.
func emit(_ line: String) {
    print(line)
    fflush(nil)
}

/// Writes one line to standard error.
func note(_ line: String) {
    fflush(nil)
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// A failure of the benchmark itself (a child that does not answer, a protocol step that does not happen).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Byte-level helpers for the hot paths of the benchmark's own clients, which must not spend their time decoding JSON:
/// they find a field's integer by scanning for `"key":`.
enum Bytes {
    /// The non-negative integer that follows `key` (for example `"seq":`) in `bytes`, if any.
    static func integer(after key: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let start = index(after: key, in: bytes) else { return nil }
        var value = 0
        var index = start
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value &* 10 &+ Int(bytes[index] - 0x30)
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// Whether `needle` occurs in `bytes`.
    static func contains(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        index(after: needle, in: bytes) != nil
    }

    /// The index right after the first occurrence of `needle` in `bytes`.
    static func index(after needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        let first = needle[0]
        var index = 0
        let last = bytes.count - needle.count
        outer: while index <= last {
            if bytes[index] == first {
                var offset = 1
                while offset < needle.count {
                    if bytes[index + offset] != needle[offset] {
                        index += 1
                        continue outer
                    }
                    offset += 1
                }
                return index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// The decimal digits of `value`, appended to `buffer` without going through `String`.
    static func appendDecimal(_ value: UInt64, to buffer: inout [UInt8]) {
        if value == 0 {
            buffer.append(0x30)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(rest % 10) + 0x30
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[index]) }
        }
    }
}

/// Latency figures over a set of samples, in nanoseconds, with nearest-rank percentiles.
struct LatencyStats: Codable, Sendable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var mean: Double
    var min: Double
    var max: Double

    init(nanoseconds samples: [UInt64]) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ percent: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            // Nearest rank: the smallest value with at least `percent` % of the samples at or below it.
            let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
            return Double(sorted[Swift.max(1, Swift.min(rank, sorted.count)) - 1])
        }
        p50 = rank(50)
        p90 = rank(90)
        p99 = rank(99)
        p999 = rank(99.9)
        mean = sorted.isEmpty ? 0 : Double(sorted.reduce(0, &+)) / Double(sorted.count)
        min = Double(sorted.first ?? 0)
        max = Double(sorted.last ?? 0)
    }
}

/// Reads lines from a file descriptor (a child's standard output) with a timeout.
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next line, without its newline.
    ///
    /// - Throws: ``BenchError`` at end of file or when `timeout` seconds pass without a whole line.
    mutating func next(timeout: Double, what: String) throws -> String {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let now = monotonicNanoseconds()
            guard now < deadline else { throw BenchError("timed out waiting for \(what)") }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            let ready = poll(&descriptor, 1, wait)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw BenchError("\(what): the child closed its output") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// Writes `<arrival> <latency>` (nanoseconds) a line, for the paced phase's trace (`--paced-trace`).
func writeTrace(arrivals: [UInt64], latencies: [UInt64], to path: String) throws {
    guard let file = fopen(path, "w") else { throw BenchError("cannot write the paced trace to \(path)") }
    defer { fclose(file) }
    for (arrival, latency) in zip(arrivals, latencies) { fputs("\(arrival) \(latency)\n", file) }
}
