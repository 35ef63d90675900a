// hello-service: the greeter, a stepper process serving `hello.greeter` (the root flow's stepper): it runs Greeter
// (HelloGreeter) with FlowClient's StepperService and leaves cleanly (BYE) on SIGTERM or SIGINT.

import ArgumentParser
import FlowClient
import HelloGreeter

@main
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
