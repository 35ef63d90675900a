import FlowClient

/// Prints every change of the UI: its cause (commands, snapshot, user operation, session ended), then its reports.
struct ChangePrinter: Sendable {
    let changes: AsyncStream<PresenterChange>
    let output: LineOutput

    /// Prints until the client ends.
    func run() async {
        for await change in changes {
            var lines: [String] = []
            switch change.cause {
            case .commands(let commands):
                lines += commands.map { "command \($0.seq) \($0.command)" }
            case .snapshot(let seq):
                lines.append("snapshot \(seq)")
            case .userOperation(let operation):
                lines.append("user \(operation)")
            case .sessionEnded:
                lines.append("session ended")
            }
            lines += change.rejected.map { "rejected \($0)" }
            lines += change.reports.map { "report \($0.presentable) \($0.state.rawValue)" }
            output.write(lines)
        }
        // Wait to be cancelled with the others.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}
