import ArgumentParser
import FlowClient
import FlowWire
import Foundation

/// `flowctl present STEP…`: a headless presenter hosting a session and following a script (FlowClient's
/// `ScriptedPresenter`, as an app's own headless presenter does), so that an application is smoke-tested with no
/// presenter code.
struct PresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Host a session as a headless presenter: print what is visible, carry out the steps, leave.",
        discussion: """
            Prints `visible: ...` (the visible screens, outermost first, with their text data) after every change \
            and `done: STEP` after each step. The steps, in order: wait:ID (until ID is visible), gone:ID (until ID \
            is out of the UI, popped or dismissed: covered is not gone), action:ID:NAME[:JSON] (a person's action \
            on ID, JSON its payload: `delivered 0` means no stepper got it), back:STACK, tab:TABS:INDEX, \
            dismiss:MODAL. --timeout is how long the steps may take in all (and the daemon's answer to each); \
            without steps it hosts the session until SIGTERM or SIGINT. It leaves (BYE) when done, and at once when \
            an operator ends the session (sessionEnded). The session must not have a live presenter of another name \
            (sessionHosted); over CURVE, --key-file is a presenter's key.
            Exit codes: 0 every step done (without steps: stopped by SIGTERM or SIGINT); 1 a step failed, the \
            daemon refused or ended the session, the steps did not complete within --timeout, or SIGTERM or SIGINT \
            stopped it first; 2 the daemon sent no UI within --timeout (or the SNAPSHOT it announced did not come: \
            one over the client's largest message, 128 MiB, never does) or could not be reached; 64 usage.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionOption
    @Flag(name: .long, help: "Create the session when it does not exist.") var create = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The presenter's name (one with the same name takes the session over; default flowctl-present-<pid>).",
            valueName: "name"))
    var name: String?
    @Argument(
        help: ArgumentHelp(
            "Steps: wait:ID, gone:ID, action:ID:NAME[:JSON], back:STACK, tab:TABS:INDEX, dismiss:MODAL.",
            valueName: "step"))
    var steps: [String] = []

    func validate() throws {
        do { _ = try PresenterScript(parsing: steps) } catch { throw ValidationError(error.message) }
        if let name, !WireProtocol.isValidName(name) {
            throw ValidationError("name '\(name)' is not [A-Za-z0-9._-]{1,64}")
        }
    }

    func run() async throws {
        let configuration = connection.clientConfiguration
        let presenter = PresenterClient(
            name: name ?? "flowctl-present-\(getpid())", session: session.session, createSession: create,
            configuration: configuration
        )
        let scripted = ScriptedPresenter(
            script: try PresenterScript(parsing: steps), timeout: configuration.requestTimeout, output: printLine
        )
        let outcome: ScriptedPresenter.Outcome
        do {
            outcome = try await scripted.run(presenter, logger: configuration.logger)
        } catch let error as PresenterScriptError {
            printError(error.message)
            throw ExitCode(1)
        } catch {
            throw connection.exitCode(for: error)
        }
        guard let failure = scripted.failure(of: outcome) else { return }
        switch outcome {
        case .timedOutUnsynced: throw connection.exitCode(for: FlowClientError(.timedOut, failure))
        case .snapshotNotReceived:
            printError(failure)
            throw ExitCode(2)
        default:
            printError(failure)
            throw ExitCode(1)
        }
    }
}
