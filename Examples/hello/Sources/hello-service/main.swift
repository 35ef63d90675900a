// hello-service: the greeter, a stepper process serving `hello.greeter` (the root flow's stepper). On every new
// attachment it emits `greetingIsReady` with its greeting; it leaves cleanly (BYE) on SIGTERM or SIGINT.

import ArgumentParser
import FlowClient
import FlowCore
import HelloFlows
import Logging

/// The service's decisions, without I/O: an attachment in, a greeting out.
struct Greeter: StepperLogic {
    var greeting: String

    var kinds: [String] { [HelloStep.greeterKind] }

    mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) -> [StepEmission] {
        // A resumed attachment (the daemon or this service restarted) has had its greeting already.
        guard case .event(.attached(let attachment)) = input, !attachment.resumed else { return [] }
        return [StepEmission(HelloStep.greetingIsReady("\(greeting), \(attachment.session)!"), for: attachment.id)]
    }
}

struct HelloService: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hello-service", abstract: "The hello application's greeter (serves hello.greeter)."
    )

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "What to greet with.")
    var greeting = "Hello"

    func run() async throws {
        try await StepperService.serve(
            Greeter(greeting: greeting), name: "hello-service", options: connection, label: "hello.service"
        )
    }
}

/// Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the asynchronous one
/// is chosen.
func main() async { await HelloService.main() }

await main()
