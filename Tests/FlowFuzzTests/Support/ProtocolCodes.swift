import FlowWire
import Foundation

/// The error codes of `docs/PROTOCOL.md` §3's table, read from the document itself.
enum ProtocolCodes {
    static let documented: Set<String> = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // FlowFuzzTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var codes: Set<String> = []
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| code | meaning |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if let first = cells.first, first.hasPrefix("`"), first.hasSuffix("`"), first.count > 2 {
                codes.insert(String(first.dropFirst().dropLast()))
            }
        }
        return codes
    }()
}

/// Counts by error code (and a count of cases that decoded), printed as a sorted table.
struct CodeTally: CustomStringConvertible, Sendable {
    private(set) var counts: [String: Int] = [:]

    mutating func add(_ code: String, _ count: Int = 1) { counts[code, default: 0] += count }

    var total: Int { counts.values.reduce(0, +) }

    var description: String {
        counts.keys.sorted().map { "\($0)=\(counts[$0]!)" }.joined(separator: " ")
    }
}

/// Time spent in `body`: wall-clock seconds, and the CPU seconds of the calling thread (which the other processes
/// of a busy machine do not inflate).
func measure<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double, cpuSeconds: Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = threadCPUSeconds()
    let result = try body()
    let elapsed = start.duration(to: clock.now)
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (result, wall, threadCPUSeconds() - cpuStart)
}

/// The CPU time the calling thread has used.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The rule of `docs/PROTOCOL.md` on who may send what (§3, §5, §6, §7): a message type, a role.
func roleMaySend(_ type: String, _ role: String) -> Bool {
    switch type {
    case "HEARTBEAT", "BYE": return true
    case "STEP", "ADAPTED": return role == "stepper"
    case "SYNC", "ACK", "REPORT", "USER_ACTION": return role == "presenter"
    case "SESSIONS", "TREE", "DEEPLINK", "CREATE_SESSION", "END_SESSION", "HEALTH", "DESCRIBE":
        return role == "operator"
    default: return false
    }
}

/// `docs/PROTOCOL.md` §2: a type only the daemon sends is refused by its direction, whatever its body; §3's order:
/// a message the codec refuses keeps the codec's code, but for such a type's unreadable body.
func daemonRefusal(of codecError: WireError, welcomed: Bool) -> WireError {
    let daemonTypes = ["WELCOME", "OK", "ERROR", "ATTACH", "DETACH", "ACTION", "ADAPT", "SNAPSHOT", "COMMAND", "EVENT"]
    guard codecError.code == .malformedBody, let type = codecError.type, daemonTypes.contains(type.rawValue) else {
        return codecError
    }
    return WireError(welcomed ? .forbidden : .notWelcome, "", req: codecError.req, type: type)
}
