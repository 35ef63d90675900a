import ArgumentParser
import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging

/// `flowctl`: the operator's tool for a running `flowd`.
///
/// Exit codes: 0 on success, 1 when the daemon refused the request (an `ERROR` reply: the code is printed; `check`,
/// `graph`: the file has mistakes; `keygen`: the keys could not be written; `present`: a step failed, the session was
/// refused or ended, the steps did not complete within `--timeout` or a signal stopped it first), 2 when the daemon
/// did not answer within `--timeout` or could not be reached (`present`: or the SNAPSHOT it announced did not come;
/// `graph`: Graphviz is missing or failed), 64 for a usage mistake.
@main
struct Flowctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract:
            "Operate a running flowd: sessions, flow trees, the navigation stream, deep links, health, vocabulary, "
            + "a scripted headless presenter.",
        discussion: """
            Endpoints default to ipc://$RUNTIME/control.sock and ipc://$RUNTIME/events.sock, where $RUNTIME is \
            --runtime-dir, else $FLOWD_RUNTIME_DIR, else $XDG_RUNTIME_DIR/flowd, else /run/flowd for root, else \
            /tmp/flowd-<uid>, as flowd itself finds it (the shipped units and config use /run/flowd: \
            FLOWD_RUNTIME_DIR=/run/flowd flowctl ...).
            A daemon running with CURVE keys needs --key-file (an operator key on its allow-list) and --server-key, \
            or FLOWD_KEY_FILE and FLOWD_SERVER_KEY; `flowctl keygen` makes key pairs (docs/SECURITY.md).
            Exit codes: 0 success; 1 the daemon refused the request (check, graph: the file has mistakes; keygen: \
            the keys could not be written; present: a step failed, the session was refused or ended, the steps \
            did not complete in time, or a signal stopped it first); 2 the \
            daemon did not answer in time or could not be reached (present: or the SNAPSHOT it announced did not \
            come; graph: Graphviz is missing or failed); 64 usage.
            """,
        subcommands: [
            Sessions.self, Tree.self, Watch.self, StepCommand.self, OpenCommand.self, Health.self, Describe.self, SessionGroup.self,
            EndSession.self, PresentCommand.self, Keygen.self, Check.self, Graph.self,
        ]
    )
}

// MARK: - Common options

/// Options every command takes: the client options every Flowd client process shares (FlowClientOptions), how long
/// to wait, and whether to log the connection.
struct ConnectionOptions: ParsableArguments {
    @OptionGroup var client: FlowClientOptions

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the daemon's answer.", valueName: "seconds"))
    var timeout: Double = 5

    @Flag(name: .long, help: "Log the connection to standard error (as --log-level debug).")
    var verbose = false

    func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
    }

    var endpoints: FlowdEndpoints { client.endpoints }

    /// The configuration of every connection: errors only are logged unless --verbose or --log-level says otherwise.
    var clientConfiguration: FlowClientConfiguration {
        let level = verbose ? .debug : client.level(default: .error)
        let logger = Logger(label: "flowctl") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let requestTimeout = Duration.milliseconds(Int64((timeout * 1000).rounded(.up)))
        // The CURVE settings were checked by `FlowClientOptions.validate()` already: the fallback is never taken.
        return (try? client.clientConfiguration(logger: logger, requestTimeout: requestTimeout))
            ?? FlowClientConfiguration(endpoints: endpoints, requestTimeout: requestTimeout, logger: logger)
    }

    /// Runs `body` with a connected operator client, turning the client's errors into messages and exit codes.
    func withOperator<T>(_ body: (OperatorClient) async throws -> T) async throws -> T {
        do {
            return try await OperatorClient.withConnection(
                name: "flowctl-\(getpid())", configuration: clientConfiguration
            ) {
                client in try await body(client)
            }
        } catch {
            throw exitCode(for: error)
        }
    }

    /// Prints what a client's error means and gives its exit code: 1 for the daemon's refusal (`DaemonError`), 2
    /// when it did not answer or cannot be reached (`FlowClientError`); any other error as it is.
    func exitCode(for error: any Error) -> any Error {
        switch error {
        case let error as DaemonError:
            let what = error.type.map { " \($0)" } ?? ""
            printError("flowd refused\(what): \(error.code): \(error.message)")
            return ExitCode(1)
        case let error as FlowClientError:
            printError(describe(error))
            return ExitCode(2)
        default:
            return error
        }
    }

    func describe(_ error: FlowClientError) -> String {
        switch error.code {
        case .timedOut:
            // Over CURVE a wrong key looks like silence (ZAP refuses, or the handshake never completes).
            let hint: String
            if (try? client.curve()) != nil {
                hint = ", and does its allow-list hold --key-file's key and is --server-key its public key?"
            } else if endpoints.control.hasPrefix("tcp://") {
                hint = "? (a daemon with CURVE keys needs --key-file and --server-key)"
            } else {
                hint = "?"
            }
            return "flowd did not answer within \(timeout) s at \(endpoints.control): is it running\(hint)"
        case .connectionLost:
            return "the connection to flowd at \(endpoints.control) was lost: \(error.message)"
        default:
            return "cannot talk to flowd at \(endpoints.control): \(error)"
        }
    }
}

/// The session option of the commands about one session.
struct SessionOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The session.", valueName: "id"))
    var session = "default"

    func validate() throws { try validateSessionID(session) }
}

/// Refuses a session ID the daemon would refuse (`WireProtocol.isValidName`) before connecting to it.
func validateSessionID(_ id: String) throws {
    guard WireProtocol.isValidName(id) else {
        throw ValidationError("session '\(id)' is not [A-Za-z0-9._-]{1,64}")
    }
}

// MARK: - Commands

struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions, sorted by ID: all of them, or one page with --after or --limit."
    )

    @OptionGroup var connection: ConnectionOptions
    @Flag(name: .long, help: "Print JSON.") var json = false
    @Option(name: .long, help: ArgumentHelp("Only the sessions whose ID starts with this.", valueName: "text"))
    var prefix: String?
    @Option(name: .long, help: ArgumentHelp("One page, starting after this session ID.", valueName: "id"))
    var after: String?
    @Option(name: .long, help: "One page of at most this many sessions (the daemon takes 2000 at most).")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let sessions: [SessionSummary]
        var next: String?
        var bounds: SessionUsage?
        let json = json
        if after != nil || limit != nil {
            let (page, known) = try await connection.withOperator { [after, limit, prefix] client in
                (
                    try await client.sessions(after: after, limit: limit, prefix: prefix),
                    json ? nil : try await client.health().sessionBounds
                )
            }
            // One page: as the daemon gave it, with `next` when more follow.
            if json { return printLine(try encodeJSON(page)) }
            (sessions, next, bounds) = (page.sessions, page.next, known)
        } else {
            (sessions, bounds) = try await connection.withOperator { [prefix] client in
                (try await client.sessions(prefix: prefix), json ? nil : try await client.health().sessionBounds)
            }
        }
        if json {
            printLine(try encodeJSON(sessions))
        } else if sessions.isEmpty {
            printLine("(no sessions)")
        } else {
            for session in sessions { printLine(session.description + Self.mark(session, bounds)) }
            if let next { printLine("(more: --after \(next))") }
        }
    }

    /// `  <- 93% of daemon.max_session_ui_bytes` for a session at 90 % or more of a bound that refuses steps (the
    /// daemon's, from `HEALTH`), `(steps refused)` from 100 %; `""` for the others and without the bounds.
    static func mark(_ session: SessionSummary, _ bounds: SessionUsage?) -> String {
        guard let bounds, let near = session.usage?.near(bounds), !near.isEmpty else { return "" }
        return "  <- "
            + near.map { "\($0.percent)% of \($0.setting)" + ($0.percent >= 100 ? " (steps refused)" : "") }
            .joined(separator: ", ")
    }
}

struct Tree: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a session's flow tree.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionOption
    @Flag(name: .long, help: "Print the tree as JSON.") var json = false

    func run() async throws {
        let report = try await connection.withOperator { client in try await client.tree(session: session.session) }
        if json {
            printLine(try encodeJSON(report.tree))
        } else {
            let text = report.text.hasSuffix("\n") ? String(report.text.dropLast()) : report.text
            printLine(text)
        }
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the navigation events as they happen (until interrupted).",
        discussion: "Prints `did navigate flow=<Flow> step=<step>` lines; the stream may lose events under load."
    )

    @OptionGroup var connection: ConnectionOptions
    @Option(name: .long, help: ArgumentHelp("Watch this session only (default: every session).", valueName: "id"))
    var session: String?
    @Flag(name: .long, help: "Also print `will navigate` lines.") var will = false
    @Flag(name: .long, help: "Also print dropped steps.") var drops = false
    @Flag(name: .long, help: "Start each line with the session's ID.") var showSession = false

    func validate() throws {
        if let session { try validateSessionID(session) }
    }

    func run() async throws {
        // Make sure the daemon is there (and the session exists) before waiting for events that may never come.
        try await connection.withOperator { client in
            if let session { _ = try await client.tree(session: session) } else { _ = try await client.health() }
        }
        let configuration = connection.clientConfiguration
        let events = FlowEvents(
            endpoint: connection.endpoints.events, session: session, options: configuration.connectionSocketOptions,
            logger: configuration.logger
        )
        do {
            for try await event in events {
                switch event.event {
                case "will" where !will, "drop" where !drops: continue
                default: break
                }
                let text = event.text.isEmpty ? describe(event) : event.text
                printLine(showSession ? "\(event.session) \(text)" : text)
            }
        } catch let error as FlowClientError {
            printError(connection.describe(error))
            throw ExitCode(2)
        }
    }

    private func describe(_ event: EventMessage) -> String {
        switch event.event {
        case "drop": return "drop step=\(event.step) reason=\(event.reason ?? "?")"
        default: return "\(event.event) navigate flow=\(event.flow ?? "?") step=\(event.step)"
        }
    }
}

struct StepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "step",
        abstract: "Deep link: offer a step to every flow of a session's tree, parent first.",
        discussion: "The payload is JSON: 23452, '\"text\"', '{\"movie\": 23452}'."
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionOption
    @Argument(help: ArgumentHelp("The step's name.", valueName: "step")) var name: String
    @Argument(help: ArgumentHelp("The step's payload, as JSON.", valueName: "payload-json")) var payload: String?

    func validate() throws {
        guard WireProtocol.isValidStepName(name) else {
            throw ValidationError("step name '\(name)' is not [A-Za-z0-9._:-]{1,128}")
        }
        _ = try parsedPayload()
    }

    private func parsedPayload() throws -> JSONValue {
        guard let payload else { return .null }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8))
        } catch {
            throw ValidationError("the payload is not JSON (quote a string: '\"text\"'): \(payload)")
        }
    }

    func run() async throws {
        let step = Step(name, payload: try parsedPayload())
        let navigations = try await connection.withOperator { client in
            try await client.deepLink(session: session.session, step: step)
        }
        printLine("deep link \(step) in session \(session.session): \(navigations) flow(s) navigated")
    }
}

struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's health.")

    @OptionGroup var connection: ConnectionOptions
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        let health = try await connection.withOperator { client in try await client.health() }
        if json {
            printLine(try encodeJSON(health))
            return
        }
        let status =
            "status=\(health.status) daemon=\(health.daemon)" + (health.appVersion.map { " app_version=\($0)" } ?? "")
        printLine("\(status) uptime=\(health.uptimeSeconds)s sessions=\(health.sessions)")
        printLine(
            "peers: " + health.peers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        printLine("counters: " + (try encodeJSON(health.counters, pretty: false)))
        if let grace = health.restartGrace {
            // `restart grace: 2140 ms left, awaiting login.app=login-b home=b-login,c-login`.
            printLine(
                "restart grace: \(grace.msLeft) ms left, awaiting "
                    + grace.awaited.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.joined(separator: ","))" }
                    .joined(separator: " "))
        }
        if let largest = health.sessionUsageMax, let bounds = health.sessionBounds {
            // The largest of each figure over the sessions, against its bound: `screens=12/20000 …`.
            printLine(
                "largest session figures: "
                    + zip(largest.quantities, bounds.quantities).map { "\($0.name)=\($0.value)/\($1.value)" }
                    .joined(separator: " "))
        }
    }
}

struct Describe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the running application declares: steps, stepper kinds, screen types and their actions."
    )

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The session whose application version to describe (default: the one new sessions get).")
    var session: String?
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws {
        if let session { try validateSessionID(session) }
    }

    func run() async throws {
        let vocabulary = try await connection.withOperator { [session] client in
            try await client.describe(session: session)
        }
        if json {
            printLine(try encodeJSON(vocabulary))
            return
        }
        if let version = vocabulary.appVersion { printLine("app version: \(version)") }
        func shape(_ text: String?) -> String { text.map { " payload=\($0)" } ?? "" }
        printLine("steps:")
        for step in vocabulary.steps { printLine("  \(step.name)\(shape(step.payload)): \(step.summary)") }
        printLine("stepper kinds:")
        for kind in vocabulary.stepperKinds {
            printLine("  \(kind.kind) emits \(kind.steps.joined(separator: ", ")): \(kind.summary)")
        }
        printLine("screen types:")
        for screen in vocabulary.screenTypes {
            printLine("  \(screen.type) (\(screen.kind))" + (screen.data.map { " data=\($0)" } ?? ""))
            for action in screen.actions {
                printLine("    action \(action.name)\(shape(action.payload)): \(action.summary)")
            }
        }
    }
}

struct SessionGroup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Manage sessions.", subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a session.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The new session's ID.", valueName: "id")) var id: String

        func validate() throws { try validateSessionID(id) }

        func run() async throws {
            let created = try await connection.withOperator { client in try await client.createSession(id) }
            printLine(created ? "created session \(id)" : "session \(id) exists already")
        }
    }
}

struct EndSession: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-session",
        abstract: "End a session: its presenter is told, its steppers detached, its state dropped for good.",
        discussion: "An unknown or already ended session is refused (unknownSession, exit code 1)."
    )

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: ArgumentHelp("The session to end.", valueName: "id")) var id: String

    func validate() throws { try validateSessionID(id) }

    func run() async throws {
        let ended = try await connection.withOperator { client in try await client.endSession(id) }
        printLine("ended session \(id) \(ended)")
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a CURVE key pair for flowd or one of its clients.",
        discussion: """
            With --out PREFIX, writes PREFIX.key (the secret key, mode 0600; an existing one is never overwritten) \
            and PREFIX.pub (the public key) and prints the public key; without it, prints both keys. Give the public \
            key to the daemon's allow-list (a client's) or to the clients as --server-key (the daemon's).
            """
    )

    @Option(name: .long, help: ArgumentHelp("Write <prefix>.key and <prefix>.pub.", valueName: "prefix"))
    var out: String?

    func run() throws {
        do {
            let pair = try FlowClientCurve.generate(writingTo: out)
            printLine("public-key: \(pair.publicKey.z85)")
            if let out {
                printLine("wrote \(out).key (secret, mode 0600) and \(out).pub")
            } else {
                printLine("secret-key: \(pair.secretKey.z85)")
            }
        } catch {
            printError(error.message)
            throw ExitCode(1)
        }
    }
}

// MARK: - Output

/// Writes a line to standard output at once (no buffering: `watch` lines appear as they happen, even in a pipe):
/// FlowClient's line writer, the one `present`'s scripted presenter prints with.
func printLine(_ line: String) {
    ScriptedPresenter.writeLine(line)
}

/// Writes `flowctl: <message>` to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("flowctl: \(message)\n".utf8))
}

func encodeJSON(_ value: some Encodable, pretty: Bool = true) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
        pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
