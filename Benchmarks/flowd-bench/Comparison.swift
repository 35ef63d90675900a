import Foundation

/// flowd against one baseline on one transport: flowd's figure divided by the baseline's (medians over the
/// repetitions). Below 1 is better for flowd on latency and CPU, above 1 on throughput.
struct Comparison: Codable, Sendable {
    var transport: Transport
    /// The flowd variant compared (`flowd+journal(interval)` when it ran: the default configuration).
    var flowd: String
    var baseline: BenchSystem
    var p50: Double
    var p99: Double
    var p999: Double
    var throughput: Double
    var serverCPU: Double
}

/// flowd with the library clients against flowd with the hand-written ones (same daemon, same run).
struct ClientModeRatio: Codable, Sendable {
    var transport: Transport
    /// library p50 / hand-written p50 (the issue asks for at most 1.2).
    var p50: Double
    var p99: Double
    /// library throughput / hand-written throughput.
    var throughput: Double
    /// The clients' CPU per step (stepper + presenter), library / hand-written.
    var clientCPU: Double
}

/// `numerator / denominator`, 0 when the denominator is not positive (a figure too small to measure: JSON has no
/// infinity).
func ratio(_ numerator: Double, _ denominator: Double) -> Double {
    denominator > 0 ? numerator / denominator : 0
}

/// The paced phase's latency over the runs that had one (the hand-written clients'); `nil` when none did.
func pacedCell(_ runs: [RunResult], _ value: (LatencyStats) -> Double) -> Summary.Cell? {
    let values = runs.compactMap(\.presenter.pacedLatency).filter { $0.count > 0 }.map(value)
    return values.isEmpty ? nil : Summary.Cell(values)
}

extension Orchestrator {
    /// The flowd variant the baselines are compared with: journaled with `interval` (flowd's default fsync policy)
    /// when it ran, plain flowd otherwise; hand-written clients, the fewest idle sessions.
    func reference(in summaries: [Summary], transport: Transport) -> Summary? {
        let flowd = summaries.filter {
            $0.transport == transport && $0.system == .flowd && ($0.clients ?? .wire) == .wire
                && $0.idleSessions == (settings.idleSessions.min() ?? 0)
        }
        return flowd.first { $0.journal == "interval" } ?? flowd.first { $0.journal == nil }
    }

    func comparisons(_ summaries: [Summary]) -> [Comparison] {
        settings.transports.flatMap { transport -> [Comparison] in
            guard let flowd = reference(in: summaries, transport: transport) else { return [] }
            return summaries.filter { $0.transport == transport && $0.system != .flowd }.map { baseline in
                Comparison(
                    transport: transport, flowd: label(flowd), baseline: baseline.system,
                    p50: ratio(flowd.p50Micros.median, baseline.p50Micros.median),
                    p99: ratio(flowd.p99Micros.median, baseline.p99Micros.median),
                    p999: ratio(flowd.p999Micros.median, baseline.p999Micros.median),
                    throughput: ratio(flowd.commandsPerSecond.median, baseline.commandsPerSecond.median),
                    serverCPU: ratio(flowd.serverCPUMicrosPerStep.median, baseline.serverCPUMicrosPerStep.median)
                )
            }
        }
    }

    func clientModeRatios(_ summaries: [Summary], runs: [RunResult]) -> [ClientModeRatio] {
        settings.transports.compactMap { transport in
            let plain = summaries.filter {
                $0.transport == transport && $0.system == .flowd && $0.journal == nil
                    && $0.idleSessions == (settings.idleSessions.min() ?? 0)
            }
            guard let wire = plain.first(where: { ($0.clients ?? .wire) == .wire }),
                let library = plain.first(where: { $0.clients == .library })
            else { return nil }
            func clientCPU(_ mode: ClientMode) -> Double {
                Summary.Cell(
                    runs.filter {
                        $0.transport == transport && $0.system == .flowd && $0.journal == nil
                            && ($0.clients ?? .wire) == mode && $0.idleSessions == wire.idleSessions
                    }.map { $0.cpu.stepperMicrosPerStep + $0.cpu.presenterMicrosPerStep }
                ).median
            }
            return ClientModeRatio(
                transport: transport, p50: ratio(library.p50Micros.median, wire.p50Micros.median),
                p99: ratio(library.p99Micros.median, wire.p99Micros.median),
                throughput: ratio(library.commandsPerSecond.median, wire.commandsPerSecond.median),
                clientCPU: ratio(clientCPU(.library), clientCPU(.wire))
            )
        }
    }

    func label(_ summary: Summary) -> String {
        Variant(
            system: summary.system, idleSessions: summary.idleSessions, journal: summary.journal,
            clients: summary.clients ?? .wire
        ).label
    }

    /// One table per transport: every variant's medians, and the reference flowd's figures divided by each row's.
    func printComparison(_ report: BenchReport, transport: Transport) {
        guard let flowd = reference(in: report.summary, transport: transport) else { return }
        print("")
        print("-- \(transport): \(label(flowd)) ÷ each system (medians; < 1 is flowd faster on latency and CPU) --")
        let columns = [
            "system".padding(toLength: 26, withPad: " ", startingAt: 0), "p50 µs", "p99 µs", "p99.9 µs", "k msg/s",
            "server CPU µs/msg", "÷ p50", "÷ p99", "÷ p99.9", "÷ msg/s", "÷ CPU",
        ]
        print(columns.joined(separator: " | "))
        let flowdFirst = report.summary.filter { $0.transport == transport && $0.idleSessions == flowd.idleSessions }
            .sorted { ($0.system == .flowd ? 0 : 1) < ($1.system == .flowd ? 0 : 1) }
        for row in flowdFirst {
            func divided(_ value: (Summary) -> Double) -> String {
                String(format: "%.2f", ratio(value(flowd), value(row)))
            }
            let cells = [
                label(row).padding(toLength: 26, withPad: " ", startingAt: 0),
                String(format: "%.1f", row.p50Micros.median), String(format: "%.1f", row.p99Micros.median),
                String(format: "%.1f", row.p999Micros.median), String(format: "%.1f", row.commandsPerSecond.median / 1000),
                String(format: "%.1f", row.serverCPUMicrosPerStep.median), divided(\.p50Micros.median),
                divided(\.p99Micros.median), divided(\.p999Micros.median), divided(\.commandsPerSecond.median),
                divided(\.serverCPUMicrosPerStep.median),
            ]
            print(cells.joined(separator: " | "))
        }
        let paced = flowdFirst.compactMap { row in
            row.pacedP99Micros.map { p99 in
                "\(label(row)) "
                    + String(
                        format: "p50 %.1f, p99 %.1f µs, %.1f %% late", row.pacedP50Micros?.median ?? 0, p99.median,
                        (row.pacedLateShare?.median ?? 0) * 100
                    )
            }
        }
        if !paced.isEmpty {
            print(
                "paced (\(settings.pacedSeconds) s at half each system's own flat-out rate; the target is p99 ≤ 2 ms): "
                    + paced.joined(separator: "; ")
            )
        }
        for ratio in report.clientModes where ratio.transport == transport {
            print(
                String(
                    format: "library clients ÷ hand-written (plain flowd): p50 %.2fx, p99 %.2fx, throughput %.0f%%, "
                        + "clients' CPU per step %.2fx",
                    ratio.p50, ratio.p99, ratio.throughput * 100, ratio.clientCPU
                )
            )
        }
    }
}
