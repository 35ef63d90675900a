import FlowClient
import FlowCore
import Foundation

/// Carries out the commands read on standard input, one at a time.
struct CommandReader: Sendable {
    let client: PresenterClient
    let output: LineOutput
    let lines: AsyncStream<String>

    /// Returns at `quit`; at the end of the input, waits to be cancelled (the session stays hosted).
    func run() async {
        if await readCommands() { return }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Returns whether `quit` was read.
    private func readCommands() async -> Bool {
        for await line in lines {
            let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true).map(String.init)
            guard let verb = words.first, !verb.hasPrefix("#") else { continue }
            if verb == "quit" { return true }
            do {
                let detail = try await execute(verb, Array(words.dropFirst()))
                output.write("ok \(line)" + (detail.map { " \($0)" } ?? ""))
            } catch {
                output.write("error \(line): \(error)")
            }
        }
        return false
    }

    private func execute(_ verb: String, _ arguments: [String]) async throws -> String? {
        switch (verb, arguments.count) {
        case ("action", 2), ("action", 3):
            var payload = JSONValue.null
            if arguments.count == 3 {
                do {
                    payload = try JSONDecoder().decode(JSONValue.self, from: Data(arguments[2].utf8))
                } catch {
                    throw InputError("the payload is not JSON: \(arguments[2])")
                }
            }
            let delivered = try await client.userAction(Step(arguments[1], payload: payload), on: PresentableID(arguments[0]))
            return "delivered=\(delivered)"
        case ("back", 1):
            try await client.tapBack(in: PresentableID(arguments[0]))
        case ("tab", 2):
            guard let index = Int(arguments[1]) else { throw InputError("the tab index is not a number") }
            try await client.selectTab(index, in: PresentableID(arguments[0]))
        case ("dismiss", 1):
            try await client.dismiss(PresentableID(arguments[0]))
        case ("screens", 0):
            let rendering = client.model.description.split(separator: "\n").map(String.init)
            output.write(["--- screens"] + rendering + ["--- end"])
        default:
            throw InputError(
                "unknown command (action <presentable> <name> [json] | back <stack> | tab <tabs> <index> | "
                    + "dismiss <modal> | screens | quit)"
            )
        }
        return nil
    }
}

/// A line of standard input that cannot be carried out.
struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
