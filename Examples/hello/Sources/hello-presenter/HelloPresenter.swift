// hello-presenter: a headless presenter for the hello application. It hosts a session (created if new), prints
// what is visible after every change, reports visibility and dismissals to the daemon (PresenterClient does), and
// carries out the steps its arguments give (see ScriptStep), then leaves (BYE). Without steps it runs until SIGTERM
// or SIGINT.

import ArgumentParser
import FlowClient
import FlowCore
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct HelloPresenter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hello-presenter", abstract: "A headless presenter for the hello application."
    )

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "The session to host (created when new).")
    var session = "default"

    @Option(help: "Seconds the steps may take in all before the presenter gives up (exit status 1).")
    var timeout = 60

    @Argument(help: "Steps: wait:ID, gone:ID, action:ID:NAME[:JSON], back:STACK, tab:TABS:INDEX, dismiss:MODAL.")
    var steps: [String] = []

    func validate() throws {
        for step in steps where ScriptStep(step) == nil { throw ValidationError("not a step: '\(step)'") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        connection.bootstrapStandardErrorLogging(default: .notice)
        let logger = Logger(label: "hello.presenter")
        let presenter = PresenterClient(
            name: "hello-presenter", session: session, createSession: true,
            configuration: try connection.clientConfiguration(logger: logger)
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: presenter)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            )
        )
        let script = steps.compactMap(ScriptStep.init)
        let changes = presenter.changes()
        let finished = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await group.run()
                return false
            }
            if !script.isEmpty {
                tasks.addTask { [timeout] in
                    try? await Task.sleep(for: .seconds(timeout))
                    return false
                }
            }
            tasks.addTask { try await Self.show(changes, presenter: presenter, script: script) }
            // The first task to end (the script done or failed, the deadline passed, the presenter stopped) stops
            // the others; the steps are done when the script's task says so.
            var done = false
            do {
                done = try await tasks.next() ?? false
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                while let result = try await tasks.next() { done = done || result }
            } catch {
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                throw error
            }
            return done
        }
        if !script.isEmpty && !finished {
            Self.say("hello-presenter: the steps did not complete within \(timeout) s")
            throw ExitCode.failure
        }
    }

    /// Prints every change and walks `script` as the model allows; `true` once every step is done.
    static func show(_ changes: AsyncStream<PresenterChange>, presenter: PresenterClient, script: [ScriptStep])
        async throws -> Bool
    {
        var next = 0
        var lastLine = ""
        for await change in changes {
            let line = change.model.visibleLine
            if line != lastLine {
                say("visible: \(line)")
                lastLine = line
            }
            while next < script.count, script[next].holds(in: change.model) {
                let note = try await script[next].perform(on: presenter)
                say("done: \(script[next])\(note)")
                next += 1
            }
            if !script.isEmpty && next == script.count { return true }
        }
        return false
    }

    /// Prints a line at once, even into a pipe (`print` buffers there).
    static func say(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}
