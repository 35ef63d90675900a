import ArgumentParser
import FlowClient

/// `flowctl open URI`: a URI deep link, applied by the daemon as its chain of steps.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Deep link by URI: apply the chain of steps the application maps it to (docs/FLOWFILE.md).",
        discussion: """
            Each step is applied once the flows that handle it are ready; the leading steps whose screens are shown \
            already are skipped. The daemon waits up to daemon.deep_link_wait_ms (3 s) for a step; keep --timeout \
            above it. A URI no deep link matches is refused with the application's patterns.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionOption
    @Argument(help: ArgumentHelp("The URI, e.g. movies://wishlist/movie/23452.", valueName: "uri")) var uri: String

    func validate() throws {
        guard !uri.isEmpty, uri.utf8.count <= 2048 else { throw ValidationError("the URI must be 1 to 2048 bytes") }
    }

    func run() async throws {
        let result = try await connection.withOperator { client in
            try await client.open(session: session.session, uri: uri)
        }
        let applied = result.applied ?? []
        let skipped = result.skipped ?? []
        printLine(
            "opened \(uri) in session \(session.session): applied [\(applied.joined(separator: ", "))]"
                + (skipped.isEmpty ? "" : ", skipped (shown already) [\(skipped.joined(separator: ", "))]")
                + ", \(result.navigations) flow(s) navigated"
        )
    }
}
