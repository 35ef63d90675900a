import FlowDaemon
import FlowWire
import Foundation
import Logging
import MovieDemo
import Testing

/// Measures what an idle demo session costs a daemon: resident memory per session and creations per second, for a
/// daemon core without and with a journal (docs/PERFORMANCE.md, *Rerunning*). Run on purpose, alone:
/// `FLOWD_MEASURE_SESSIONS=20000 [FLOWD_MEASURE_JOURNAL=1] swift test --filter SessionMemoryMeasurement` (Linux: reads
/// /proc/self/statm). One measurement per process: memory freed by an earlier one would be reused and hide the cost.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FLOWD_MEASURE_SESSIONS"] != nil))
struct SessionMemoryMeasurement {
    private static func residentBytes() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4096 : 0
    }

    @Test func memoryAndCreationRateOfIdleDemoSessions() throws {
        let journaling = ProcessInfo.processInfo.environment["FLOWD_MEASURE_JOURNAL"] == "1"
        let count = Int(ProcessInfo.processInfo.environment["FLOWD_MEASURE_SESSIONS"] ?? "") ?? 20_000
        let codec = WireCodec()
        var configuration = DaemonConfiguration()
        configuration.maxSessions = count + 1000
        var core = DaemonCore(
            application: MovieDemoApplication(), configuration: configuration, daemonID: "measure",
            logger: Logger(label: "measure", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0,
            journaling: journaling
        )
        _ = core.start(now: 0)
        let operatorPeer = PeerAddress([7])
        func send(_ message: ClientMessage) {
            _ = core.handle(.message(from: operatorPeer, frames: codec.encode(message)), now: 0)
        }
        send(.hello(Hello(req: 1, role: .operator, name: "measure", instance: "m", heartbeatMs: 60_000, serves: [])))
        // Warm up the allocator and the code paths before measuring.
        for index in 0..<500 { send(.createSession(SessionRequest(req: UInt64(2 + index), session: "warm-\(index)"))) }
        _ = core.takeJournal()
        let before = Self.residentBytes()
        let start = ContinuousClock.now
        for index in 0..<count {
            send(.createSession(SessionRequest(req: UInt64(1000 + index), session: "kiosk-\(index)")))
            if index % 100 == 0 { _ = core.takeJournal() }  // the I/O thread takes records as they come
        }
        _ = core.takeJournal()
        let elapsed = ContinuousClock.now - start
        let after = Self.residentBytes()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let perSession = (after - before) / count
        print(
            "MEASURE journaling=\(journaling) sessions=\(count) rss_before=\(before) rss_after=\(after) "
                + "per_session=\(perSession) B creates_per_s=\(Int(Double(count) / seconds))"
        )
        #expect(core.sessionCount == count + 501)
        #expect(perSession > 0)
    }
}
