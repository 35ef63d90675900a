import FlowClient
import ServiceLifecycle

/// The presenter: the client, the printer of its changes and the reader of standard input, until `quit`, the end
/// of the client (a refused `SYNC`), or a graceful shutdown (SIGTERM, SIGINT); the client then says BYE.
struct PresenterService: Service {
    let client: PresenterClient
    let printer: ChangePrinter
    let reader: CommandReader

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.run() }
                group.addTask { await printer.run() }
                group.addTask { await reader.run() }
                // The first to end (`quit`, or the client) ends the others.
                _ = try await group.next()
                group.cancelAll()
                try await group.waitForAll()
            }
        }
    }
}
