import Foundation

/// What `--check` verifies of a finished run (the CI smoke): that every step of every run arrived, in order, and that
/// the report is complete and reads back. Never a speed.
enum SmokeCheck {
    static func problems(in report: BenchReport, settings: Settings) -> [String] {
        var problems: [String] = []
        for run in report.runs {
            let name = "\(run.transport) \(run.system.rawValue)\(run.clients == .library ? "+library" : "") rep \(run.repetition)"
            let lockStep = settings.warmup + settings.samples
            if run.stepper.latencySteps != lockStep {
                problems.append("\(name): \(run.stepper.latencySteps) lock-step steps of \(lockStep)")
            }
            if run.presenter.latency.count != settings.samples {
                problems.append("\(name): \(run.presenter.latency.count) latency samples of \(settings.samples)")
            }
            if run.stepper.throughputSteps <= 0 {
                problems.append("\(name): no step in the throughput phase")
            }
            if run.presenter.throughputCommands != run.stepper.throughputSteps {
                problems.append(
                    "\(name): \(run.stepper.throughputSteps) steps sent flat out, \(run.presenter.throughputCommands) "
                        + "arrived"
                )
            }
            if settings.pacedSeconds > 0, run.system != .dbus, run.clients != .library,
                run.stepper.pacedSteps ?? 0 <= 0 || run.presenter.pacedCommands != run.stepper.pacedSteps
            {
                problems.append(
                    "\(name): \(run.stepper.pacedSteps ?? 0) steps sent paced, \(run.presenter.pacedCommands ?? 0) arrived"
                )
            }
            if run.presenter.gaps != 0 { problems.append("\(name): \(run.presenter.gaps) commands out of order") }
            // Every step is answered (OK) except on D-Bus, whose calls expect no reply.
            let paced = (run.stepper.pacedSteps ?? -1) + 1
            let answered = lockStep + run.stepper.throughputSteps + 1 + paced
            if run.system != .dbus, run.stepper.accepted != answered || run.stepper.rejected + run.stepper.errors != 0 {
                problems.append(
                    "\(name): \(run.stepper.accepted) steps accepted of \(answered), \(run.stepper.rejected) rejected, "
                        + "\(run.stepper.errors) refused"
                )
            }
        }
        let expected = Orchestrator(settings: settings).variants()
        for transport in settings.transports {
            for variant in expected where !(variant.system == .dbus && transport == .tcp) {
                let runs = report.runs.filter { $0.transport == transport && variant.matches($0) }
                if runs.count != settings.repeats {
                    problems.append("\(transport) \(variant.label): \(runs.count) runs of \(settings.repeats)")
                }
                let rows = report.summary.filter {
                    $0.transport == transport && $0.system == variant.system && $0.idleSessions == variant.idleSessions
                        && $0.journal == variant.journal && ($0.clients ?? .wire) == variant.clients
                }
                if rows.count != 1 { problems.append("\(transport) \(variant.label): \(rows.count) summary rows") }
                for row in rows where !(row.p50Micros.median > 0 && row.commandsPerSecond.median > 0) {
                    problems.append("\(transport) \(variant.label): a summary row without latency or throughput")
                }
            }
            let baselines = settings.systems.filter { $0 != .flowd && !($0 == .dbus && transport == .tcp) }
            if settings.systems.contains(.flowd) {
                let compared = report.comparisons.filter { $0.transport == transport }.map(\.baseline)
                for baseline in baselines where !compared.contains(baseline) {
                    problems.append("\(transport): no ratio of flowd against \(baseline.rawValue)")
                }
            }
        }
        // Latency and throughput are always measured; a CPU figure can be too small for the clock ticks of a short run.
        let values = report.comparisons.flatMap { [$0.p50, $0.p99, $0.p999, $0.throughput] }
        if values.contains(where: { !$0.isFinite || $0 <= 0 }) { problems.append("a ratio is not a positive number") }
        // The JSON written by --json-out: an object whose lists hold every run, summary row and comparison.
        do {
            let text = try encodeJSON(report, pretty: true)
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let lists = ["runs": report.runs.count, "summary": report.summary.count, "comparisons": report.comparisons.count]
            for (key, count) in lists where (object?[key] as? [Any])?.count != count {
                problems.append("the JSON report's \(key) is not the \(count) entries measured")
            }
            let rows = object?["summary"] as? [[String: Any]] ?? []
            for row in rows where !(((row["p50_micros"] as? [String: Any])?["median"] as? Double).map { $0 > 0 } ?? false) {
                problems.append("a JSON summary row without its p50")
            }
        } catch {
            problems.append("the JSON report is not JSON: \(error)")
        }
        return problems
    }
}
